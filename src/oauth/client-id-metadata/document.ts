/**
 * A Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document §4), judged without
 * I/O: the bytes fetched become the metadata this server keeps about the client, or the reason
 * they cannot. The clients this server accepts this way are public (`none`, docs/decisions.md "Client ID Metadata Documents").
 */

import {
  DEFAULT_SIGNING_ALG,
  isSigningAlg,
  SIGNING_ALGS,
  type SigningAlg,
} from '../../crypto/signing-key.js';
import { blankNameProblem, displayTextProblem } from '../../display-text.js';
import { DEVICE_CODE_GRANT } from '../client-metadata.js';

/** Draft §8.7: the recommended maximum size to read. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** More entries than dynamic registration allows: a document serves every server at once. */
export const MAX_DOCUMENT_REDIRECT_URIS = 20;
const MAX_NAME = 200;
const MAX_URI = 2000;

/** What this server keeps of a valid document. */
export interface MetadataDocument {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  /** As the document says (informative: it never changes which redirect URIs are usable). */
  readonly applicationType: string | undefined;
  readonly clientUri: string | undefined;
  /** OIDC Dynamic Registration §2 `id_token_signed_response_alg`; RS256 when the document is silent. */
  readonly idTokenAlg: SigningAlg;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`: the app always sends DPoP proofs (false when silent). */
  readonly dpopBoundAccessTokens: boolean;
  /** Whether its `grant_types` lists the device authorization grant (RFC 8628). */
  readonly deviceGrant: boolean;
}

export type DocumentResult = { readonly document: MetadataDocument } | { readonly problem: string };

// Draft §4.1: no method based on a shared symmetric secret.
const SECRET_METHODS = ['client_secret_post', 'client_secret_basic', 'client_secret_jwt'];
// RFC 7517 §9.2 / RFC 7518 §6: members that carry private or symmetric key material.
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function parseJson(bytes: Buffer): unknown {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  return JSON.parse(text);
}

function nameProblem(value: unknown): string | undefined {
  if (value === undefined) return 'has no "client_name"; the document must name the app';
  if (typeof value !== 'string' || value.trim() === '')
    return 'has a "client_name" that is not a non-empty string';
  if (value.length > MAX_NAME) return `has a "client_name" longer than ${MAX_NAME} characters`;
  // The same rule as every display text (src/display-text.ts): nothing invisible or reordering.
  const display = displayTextProblem('"client_name"', value) ?? blankNameProblem('"client_name"', value);
  if (display) return `has a ${display}`;
  return undefined;
}

function redirectUrisProblem(value: unknown): string | undefined {
  if (value === undefined)
    return 'has no "redirect_uris"; the document must list where the app receives codes';
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_DOCUMENT_REDIRECT_URIS) {
    return `has "redirect_uris" that is not an array of 1 to ${MAX_DOCUMENT_REDIRECT_URIS} URIs`;
  }
  if (value.some((uri) => typeof uri !== 'string' || uri === '' || uri.length > MAX_URI)) {
    return `has a "redirect_uris" entry that is not a non-empty string of at most ${MAX_URI} characters`;
  }
  return undefined;
}

function authProblem(doc: Record<string, unknown>): string | undefined {
  const method = doc.token_endpoint_auth_method;
  if (typeof method === 'string' && SECRET_METHODS.includes(method)) {
    return `declares token_endpoint_auth_method "${method}", a shared-secret method a metadata document must not use (draft §4.1); a public client declares "none"`;
  }
  if (method !== undefined && method !== 'none') {
    return `declares token_endpoint_auth_method ${JSON.stringify(method)}; this server accepts metadata documents of public clients only ("none")`;
  }
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined) {
    return 'contains "client_secret" or "client_secret_expires_at", which a metadata document must not (draft §4.1)';
  }
  const keys = (doc.jwks as { keys?: unknown } | undefined)?.keys;
  if (Array.isArray(keys) && keys.some((k) => PRIVATE_JWK_MEMBERS.some((m) => k?.[m] !== undefined))) {
    return 'publishes private key material in "jwks", which a metadata document must not (draft §4.1)';
  }
  return undefined;
}

function flowProblem(doc: Record<string, unknown>): string | undefined {
  const { grant_types: grants, response_types: responses } = doc;
  if (grants !== undefined && (!Array.isArray(grants) || !grants.includes('authorization_code'))) {
    return 'has "grant_types" without "authorization_code", the only flow this server offers';
  }
  if (responses !== undefined && (!Array.isArray(responses) || !responses.includes('code'))) {
    return 'has "response_types" without "code"';
  }
  return undefined;
}

function idTokenAlgProblem(value: unknown): string | undefined {
  if (value === undefined || isSigningAlg(value)) return undefined;
  return `declares id_token_signed_response_alg ${JSON.stringify(value).slice(0, 60)}; this server signs ID tokens with ${SIGNING_ALGS.map((a) => JSON.stringify(a)).join(', ')} only (${JSON.stringify(DEFAULT_SIGNING_ALG)} when the document names none)`;
}

function optionalHttpsUri(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_URI) return undefined;
  try {
    return new URL(value).protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Validates fetched bytes as the document at `url` (draft §4): JSON object, `client_id` equal to
 * the URL by simple string comparison, `client_name` and `redirect_uris` present, no shared-secret
 * authentication, no secret, no private key. Unknown members are ignored (RFC 7591 §2).
 */
export function validateDocument(bytes: Buffer, url: string): DocumentResult {
  let doc: unknown;
  try {
    doc = parseJson(bytes);
  } catch {
    return { problem: 'is not valid JSON (UTF-8)' };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { problem: 'is not a JSON object' };
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) {
    return {
      problem:
        typeof d.client_id === 'string'
          ? `names client_id ${JSON.stringify(d.client_id.slice(0, 200))}, not the URL it was fetched from; they must be equal`
          : 'has no "client_id" string; it must be the URL the document is published at',
    };
  }
  const problem =
    nameProblem(d.client_name) ??
    redirectUrisProblem(d.redirect_uris) ??
    authProblem(d) ??
    flowProblem(d) ??
    idTokenAlgProblem(d.id_token_signed_response_alg) ??
    (d.dpop_bound_access_tokens !== undefined && typeof d.dpop_bound_access_tokens !== 'boolean'
      ? 'has a "dpop_bound_access_tokens" that is not true or false (RFC 9449 §5.2)'
      : undefined);
  if (problem) return { problem };
  return {
    document: {
      clientId: url,
      clientName: (d.client_name as string).trim(),
      redirectUris: [...new Set(d.redirect_uris as string[])],
      applicationType: typeof d.application_type === 'string' ? d.application_type.slice(0, 40) : undefined,
      clientUri: optionalHttpsUri(d.client_uri),
      idTokenAlg: (d.id_token_signed_response_alg as SigningAlg | undefined) ?? DEFAULT_SIGNING_ALG,
      dpopBoundAccessTokens: d.dpop_bound_access_tokens === true,
      deviceGrant: Array.isArray(d.grant_types) && d.grant_types.includes(DEVICE_CODE_GRANT),
    },
  };
}
