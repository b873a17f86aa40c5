/**
 * Bearer tokens on protected requests (RFC 6750): reading the Authorization header, judging the
 * token, and the WWW-Authenticate challenges that point at the protected-resource metadata
 * (RFC 9728 §5.1). Shared by the school API guard and UserInfo.
 */
import type { AppContext } from '../context.js';
import { OAuthError } from '../errors.js';
import { PATHS } from '../paths.js';
import type { AccessTokenWithAccount, BearerToken } from '../storage/contract/bearer-tokens.js';

/** RFC 6750 §2.1: `Bearer` SP token68. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

export type BearerHeader = { kind: 'none' } | { kind: 'token'; token: string } | { kind: 'malformed' };

export function readAuthorizationHeader(header: string | string[] | undefined): BearerHeader {
  if (header === undefined) return { kind: 'none' };
  if (Array.isArray(header)) return { kind: 'malformed' };
  const match = BEARER.exec(header.trim());
  return match ? { kind: 'token', token: match[1]! } : { kind: 'malformed' };
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

export function resourceMetadataUrl(issuer: string): string {
  return issuer + PATHS.protectedResourceMetadata;
}

/** `WWW-Authenticate: Bearer …` with the resource metadata pointer (and error details when given). */
export function bearerChallenge(
  issuer: string,
  details: { error?: string; description?: string; scope?: string } = {},
): string {
  const params: string[] = [];
  if (details.error) params.push(`error=${quote(details.error)}`);
  if (details.description) params.push(`error_description=${quote(details.description)}`);
  if (details.scope) params.push(`scope=${quote(details.scope)}`);
  params.push(`resource_metadata=${quote(resourceMetadataUrl(issuer))}`);
  return `Bearer ${params.join(', ')}`;
}

export function invalidToken(issuer: string, description: string): OAuthError {
  return new OAuthError('invalid_token', description, 401, {
    'www-authenticate': bearerChallenge(issuer, { error: 'invalid_token', description }),
  });
}

export function insufficientScope(issuer: string, scope: string): OAuthError {
  const description = `this operation needs the scope "${scope}"; request it in the authorization request`;
  return new OAuthError('insufficient_scope', description, 403, {
    'www-authenticate': bearerChallenge(issuer, { error: 'insufficient_scope', description, scope }),
  });
}

/**
 * Judges the row a presented access token was looked up by (undefined: not found): it must exist,
 * be unrevoked, unexpired, and be bound to this resource (RFC 8707 audience), and its person must
 * not be disabled. Throws 401 invalid_token otherwise.
 */
export function acceptToken(
  ctx: Pick<AppContext, 'config' | 'now'>,
  row: AccessTokenWithAccount | undefined,
): BearerToken {
  const { issuer } = ctx.config;
  if (!row) throw invalidToken(issuer, 'the access token is not known; obtain a new one');
  if (row.revoked_at !== null) throw invalidToken(issuer, 'the access token was revoked; obtain a new one');
  if (row.expires_at <= ctx.now()) throw invalidToken(issuer, 'the access token has expired; refresh it');
  if (row.account_disabled !== 0) {
    throw invalidToken(issuer, 'the account this access token acts for is disabled');
  }
  if (row.resource !== issuer) {
    throw invalidToken(
      issuer,
      `the access token is bound to another resource (${row.resource}); request one for ${issuer}`,
    );
  }
  return row;
}
