/**
 * Scope values (RFC 6749 §3.3): space-delimited names from the catalogue (scope-catalogue.ts). Results are in
 * catalogue order with duplicates collapsed, so equal sets always read the same.
 */
import { MAX_SCOPE_LENGTH } from '../limits.js';
import { isKnownScope, SCOPE_NAMES } from './scope-catalogue.js';

export type ParsedScope = { readonly scopes: string[] } | { readonly error: string };

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by SP. Runs of spaces
// and surrounding spaces are tolerated (clients join lists sloppily); any other whitespace is not.
const SCOPE_VALUE = /^[ \x21\x23-\x5b\x5d-\x7e]*$/;

const METADATA_HINT =
  'the accepted names are listed in scopes_supported of /.well-known/oauth-authorization-server';

/**
 * OIDC Core §11 asks for a refresh token with `offline_access`. Every grant here gets one anyway,
 * so the value is accepted and ignored (RFC 6749 §3.3 lets the server ignore part of a request):
 * it is not in scopes_supported, not shown on the consent page, not in a consent or grant, not granted.
 */
export const OFFLINE_ACCESS = 'offline_access';

/**
 * Parses a `scope` parameter; a missing or empty value is an error (docs/decisions.md "Authorization endpoint": missing `scope` is `invalid_scope`).
 * `offline_access` is dropped from the result (OFFLINE_ACCESS).
 */
export function parseScope(value: string | undefined): ParsedScope {
  if (value === undefined || value.trim() === '') {
    return { error: `the scope parameter is missing; send space-separated scope names (${METADATA_HINT})` };
  }
  if (value.length > MAX_SCOPE_LENGTH) {
    return {
      error: `the scope parameter is longer than ${MAX_SCOPE_LENGTH} characters; send only the scope names you need`,
    };
  }
  if (!SCOPE_VALUE.test(value)) {
    return {
      error:
        'the scope parameter contains characters other than scope names and single spaces; separate names with spaces',
    };
  }
  const names = value.split(' ').filter((n) => n !== '' && n !== OFFLINE_ACCESS);
  if (names.length === 0) {
    return {
      error: `offline_access alone names no scope (every grant gets a refresh token without it); send the scopes you need (${METADATA_HINT})`,
    };
  }
  const unknown = [...new Set(names.filter((n) => !isKnownScope(n)))];
  if (unknown.length > 0) {
    const list = unknown.map((n) => JSON.stringify(n)).join(', ');
    return { error: `unknown scope ${list}; ${METADATA_HINT}` };
  }
  return { scopes: inCatalogueOrder(names) };
}

/**
 * The scopes of an authorization request sent without `scope` (RFC 6749 §3.3 lets the server
 * use a documented default): who the person is and their account, nothing that writes. A client
 * that needs more asks for it by name; `scopes_supported` (RFC 8414, RFC 9728) lists what exists,
 * not what to ask for. docs/decisions.md "Scopes".
 */
export const DEFAULT_SCOPES: readonly string[] = ['openid', 'profile', 'account:read'];

/**
 * The `scope` of an authorization request: absent or blank means DEFAULT_SCOPES (a registered
 * `scope` is not used: docs/decisions.md "Scopes"); anything else as parseScope.
 */
export function parseRequestedScope(value: string | undefined): ParsedScope {
  if (value === undefined || value.trim() === '') return { scopes: [...DEFAULT_SCOPES] };
  return parseScope(value);
}

/** The given names, deduplicated, in catalogue order. */
export function inCatalogueOrder(names: readonly string[]): string[] {
  const set = new Set(names);
  return SCOPE_NAMES.filter((n) => set.has(n));
}

/** Whether every requested scope is among the granted ones (narrowing is allowed, widening is not). */
export function isSubset(requested: readonly string[], granted: readonly string[]): boolean {
  const allowed = new Set(granted);
  return requested.every((s) => allowed.has(s));
}

/** The wire form of a scope list (RFC 6749 §3.3). */
export function formatScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}

/** Splits a stored, already validated scope string. */
export function splitScope(value: string): string[] {
  return value.split(' ').filter((n) => n !== '');
}

/** A scope that changes data (`…:write`); every other scope only reads or identifies. */
export function isWriteScope(name: string): boolean {
  return name.endsWith(':write');
}
