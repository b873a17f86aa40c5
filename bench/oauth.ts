/**
 * The OAuth client side of the fixtures, the same for both servers: discovery, registration,
 * the authorization-code path with PKCE S256, and the token endpoint. Endpoints come from each
 * server's discovery document.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type CookieJar, HttpError, type HttpResult, http, json } from './http-client.js';

export interface Metadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly registration_endpoint: string;
  readonly userinfo_endpoint: string;
  readonly introspection_endpoint: string;
  readonly revocation_endpoint: string;
  readonly jwks_uri: string;
  /** RFC 9449 §5.1: present when the server accepts DPoP proofs. */
  readonly dpop_signing_alg_values_supported?: readonly string[];
}

export interface BenchClient {
  readonly clientId: string;
  readonly redirectUri: string;
}

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export interface TokenSet {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
  /** Seconds the access token lives (RFC 6749 §5.1); both servers send it. */
  readonly expires_in?: number;
  /** `Bearer`, or `DPoP` for tokens bound to a key (RFC 9449 §5). */
  readonly token_type?: string;
}

export const DISCOVERY_PATH = '/.well-known/openid-configuration';
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** The body every registration sends (fixtures and the registration scenario alike). */
export const REGISTRATION_BODY = JSON.stringify({
  client_name: 'bench agent',
  redirect_uris: [REDIRECT_URI],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
});

export async function discover(baseUrl: string): Promise<Metadata> {
  return json<Metadata>(await http(baseUrl + DISCOVERY_PATH));
}

/** Registers the bench client; `extra` adds metadata (e.g. `id_token_signed_response_alg`). */
export async function registerClient(
  meta: Metadata,
  extra: Record<string, unknown> = {},
): Promise<BenchClient> {
  const result = await http(meta.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // http() sets the content type from `json`; the body is sent exactly as the scenario sends it.
    json: { ...JSON.parse(REGISTRATION_BODY), ...extra },
  });
  const body = json<{ client_id: string }>(result);
  return { clientId: body.client_id, redirectUri: REDIRECT_URI };
}

export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(meta: Metadata, client: BenchClient, scope: string, pkce: Pkce): string {
  const url = new URL(meta.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope,
    state: randomBytes(8).toString('base64url'),
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

/** Answers an HTML page met on the authorization path (sign-in, consent) like a person would. */
export type PageDriver = (page: HttpResult, jar: CookieJar) => Promise<HttpResult>;

/**
 * Follows the authorization path from `start` until the redirect to the client, answering pages
 * with `answerPage`, and returns the code.
 */
export async function followToCode(
  start: string,
  client: BenchClient,
  jar: CookieJar,
  answerPage: PageDriver,
): Promise<string> {
  let result = await http(start, { jar });
  for (let step = 0; step < 12; step++) {
    const location = result.location;
    if (location?.startsWith(client.redirectUri)) {
      const params = new URL(location).searchParams;
      const code = params.get('code');
      if (!code) throw new Error(`authorization ended without a code: ${location}`);
      return code;
    }
    if (result.status >= 300 && result.status < 400 && location) {
      result = await http(location, { jar });
    } else if (result.status === 200) {
      result = await answerPage(result, jar);
    } else {
      throw new HttpError(
        result.status,
        `authorization path stopped at ${result.url} with ${result.status}: ${result.body.slice(0, 300)}`,
      );
    }
  }
  throw new Error(`authorization path did not reach the client within 12 steps (last: ${result.url})`);
}

/** A DPoP token set (RFC 9449 §5): its tokens are bound to the key whose proof asked for them. */
export function isDpopTokenSet(tokens: TokenSet): boolean {
  return tokens.token_type?.toLowerCase() === 'dpop';
}

/** The form body of an authorization-code exchange, as the code-exchange scenario sends it. */
export function codeExchangeBody(client: BenchClient, code: string, pkce: Pkce): string {
  return new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: pkce.verifier,
  }).toString();
}

export function refreshBody(client: BenchClient, refreshToken: string): string {
  return new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
  }).toString();
}

export function tokenRequestBody(client: BenchClient, token: string, hint: string): string {
  return new URLSearchParams({ token, token_type_hint: hint, client_id: client.clientId }).toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function exchangeCode(
  meta: Metadata,
  client: BenchClient,
  code: string,
  pkce: Pkce,
  headers: Record<string, string> = {},
): Promise<TokenSet> {
  const result = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { ...FORM, ...headers },
    body: codeExchangeBody(client, code, pkce),
  });
  const text = await result.text();
  if (result.status !== 200)
    throw new HttpError(result.status, `code exchange answered ${result.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as TokenSet;
}
