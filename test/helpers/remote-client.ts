/**
 * An OAuth client of a listening server (a process or `listenApp`), over fetch: what the
 * fault-injection suites do before and after a fault. (test/helpers/oauth.ts does the same
 * through `inject` for in-memory test apps.)
 */
import assert from 'node:assert/strict';
import { authorizeViaPages, type Browser, type Person, pkcePair } from './flow.js';
import { timedFetch } from './wait.js';

export interface Tokens {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly id_token?: string;
}

export interface RemoteClient {
  readonly id: string;
  readonly redirect: string;
  readonly secret?: string;
}

export function postForm(url: string, form: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

/** Registers a public loopback client (RFC 7591); answers its client_id. */
export async function registerClient(at: string, redirect: string, name = 'Fault agent'): Promise<string> {
  const response = await fetch(`${at}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirect], client_name: name }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return ((await response.json()) as { client_id: string }).client_id;
}

export interface PageOptions {
  readonly browser?: Browser;
  readonly person?: Person;
  readonly prompt?: string;
  readonly scope?: string;
}

/** A code through the pages (signing in and allowing when asked), with its PKCE verifier. */
export async function codeViaPages(
  at: string,
  client: RemoteClient,
  options: PageOptions = {},
): Promise<{ code: string; verifier: string }> {
  const pkce = pkcePair();
  const redirect = await authorizeViaPages({
    baseUrl: at,
    ...(options.browser ? { browser: options.browser } : {}),
    params: {
      client_id: client.id,
      redirect_uri: client.redirect,
      scope: options.scope ?? 'openid profile account:read',
      code_challenge: pkce.challenge,
      ...(options.prompt ? { prompt: options.prompt } : {}),
    },
    ...(options.person ? { email: options.person.email, password: options.person.password } : {}),
    decision: 'allow',
  });
  const code = redirect.searchParams.get('code');
  assert.ok(code, `a code: ${redirect}`);
  return { code, verifier: pkce.verifier };
}

/** The authorization_code grant, timed, never rejecting. */
export function exchangeCode(at: string, client: RemoteClient, minted: { code: string; verifier: string }) {
  return timedFetch(`${at}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: minted.code,
      redirect_uri: client.redirect,
      code_verifier: minted.verifier,
      client_id: client.id,
      ...(client.secret ? { client_secret: client.secret } : {}),
    }).toString(),
  });
}

/** A code through the pages, exchanged for tokens. */
export async function tokensViaPages(
  at: string,
  client: RemoteClient,
  options: PageOptions = {},
): Promise<Tokens> {
  const response = await exchangeCode(at, client, await codeViaPages(at, client, options));
  assert.equal(response.status, 200, response.body);
  return JSON.parse(response.body) as Tokens;
}

/** A refresh_token grant, timed, never rejecting (status 0 when no answer came). */
export function refreshTokens(at: string, client: Pick<RemoteClient, 'id' | 'secret'>, refreshToken: string) {
  return timedFetch(`${at}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: client.id,
      ...(client.secret ? { client_secret: client.secret } : {}),
    }).toString(),
  });
}

/** A protected GET (`/api/v1/account`) with a bearer token, timed. */
export const getAccount = (at: string, token: string) =>
  timedFetch(`${at}/api/v1/account`, { headers: { authorization: `Bearer ${token}` } });
