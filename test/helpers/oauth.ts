/**
 * A typed OAuth test client for HTTP suites: registers clients, creates a person, mints codes the
 * way /oauth/authorize does (issueAuthorizationCode), and calls the token-side endpoints.
 */
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createAccount } from '../../src/accounts/accounts.js';
import { issueAuthorizationCode } from '../../src/oauth/authorization-codes.js';
import { s256 } from '../../src/oauth/pkce.js';
import type { DialectName } from '../../src/storage/connect.js';
import type { Account } from '../../src/storage/schema.js';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

export interface RegisteredClient {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly redirect_uris: string[];
  readonly token_endpoint_auth_method: string;
  readonly [key: string]: unknown;
}

export type Form = Record<string, string | readonly string[] | undefined>;

export function formBody(form: Form): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) {
    if (value === undefined) continue;
    for (const v of typeof value === 'string' ? [value] : value) params.append(key, v);
  }
  return params.toString();
}

export function postForm(t: TestApp, url: string, form: Form, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: formBody(form),
  });
}

export async function register(t: TestApp, body: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/oauth/register',
    payload: { redirect_uris: [REDIRECT_URI], client_name: 'Test CLI', ...body },
  });
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.statusCode} ${res.body}`);
  return res.json() as RegisteredClient;
}

export const registerConfidential = (t: TestApp, body: Record<string, unknown> = {}) =>
  register(t, { token_endpoint_auth_method: 'client_secret_post', ...body });

let people = 0;
export async function createPerson(t: TestApp, name = 'Ada Lovelace'): Promise<Account> {
  people += 1;
  const email = `person${people}-${randomBytes(4).toString('hex')}@example.com`;
  const { account } = await createAccount(
    t.ctx.store,
    {
      email,
      name,
      password: 'correct horse battery staple',
      school: `school-${randomBytes(4).toString('hex')}`,
      schoolName: 'Test School',
    },
    t.ctx.now(),
  );
  return account;
}

export function newVerifier(): string {
  return randomBytes(32).toString('base64url');
}

export interface MintedCode {
  readonly code: string;
  readonly verifier: string;
  readonly grantId: string;
  readonly redirectUri: string;
}

export async function mintCode(
  t: TestApp,
  client: RegisteredClient,
  account: Account,
  options: {
    scopes?: string[];
    redirectUri?: string;
    resource?: string;
    nonce?: string | null;
    dpopJkt?: string;
  } = {},
): Promise<MintedCode> {
  const verifier = newVerifier();
  const redirectUri = options.redirectUri ?? client.redirect_uris[0]!;
  const issued = await issueAuthorizationCode(t.ctx, {
    clientId: client.client_id,
    accountId: account.id,
    redirectUri,
    codeChallenge: s256(verifier),
    scopes: options.scopes ?? ['openid', 'profile', 'email', 'courses:read'],
    resource: options.resource ?? t.config.issuer,
    nonce: options.nonce === undefined ? 'n-0S6_WzA2Mj' : options.nonce,
    authTime: t.ctx.now(),
    dpopJkt: options.dpopJkt,
  });
  return { code: issued.code, verifier, grantId: issued.grantId, redirectUri };
}

/** RFC 6749 Appendix B: the form-urlencoding of one value (space as "+"). */
const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);

/** An `Authorization: Basic` value as RFC 6749 §2.3.1 builds it: urlencode each part, then base64. */
export function basicAuthorization(clientId: string, clientSecret = ''): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
}

export function clientCredentials(client: RegisteredClient): Form {
  return { client_id: client.client_id, client_secret: client.client_secret };
}

export function exchangeCode(t: TestApp, client: RegisteredClient, minted: MintedCode, extra: Form = {}) {
  return postForm(t, '/api/oauth/token', {
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: minted.redirectUri,
    code_verifier: minted.verifier,
    ...clientCredentials(client),
    ...extra,
  });
}

export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly scope: string;
  readonly id_token?: string;
}

export async function tokensFor(
  t: TestApp,
  client: RegisteredClient,
  account: Account,
  options: Parameters<typeof mintCode>[3] = {},
): Promise<TokenResponse> {
  const res = await exchangeCode(t, client, await mintCode(t, client, account, options));
  if (res.statusCode !== 200) throw new Error(`code exchange failed: ${res.statusCode} ${res.body}`);
  return res.json() as TokenResponse;
}

export function refresh(t: TestApp, client: RegisteredClient, refreshToken: string, extra: Form = {}) {
  return postForm(t, '/api/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...clientCredentials(client),
    ...extra,
  });
}

export function introspect(t: TestApp, client: RegisteredClient, token: string, extra: Form = {}) {
  return postForm(t, '/api/oauth/introspect', { token, ...clientCredentials(client), ...extra });
}

export function revoke(t: TestApp, client: RegisteredClient, token: string, extra: Form = {}) {
  return postForm(t, '/api/oauth/revoke', { token, ...clientCredentials(client), ...extra });
}

/** Asserts-friendly view of an error response. */
export function errorOf(res: LightMyRequestResponse): { status: number; error: unknown } {
  return { status: res.statusCode, error: (res.json() as { error?: unknown }).error };
}

/** What a token-side suite starts from: an app, a public and a confidential client, one person. */
export async function oauthSuite(
  dialect: DialectName,
  options: TestAppOptions = {},
): Promise<{ t: TestApp; pub: RegisteredClient; conf: RegisteredClient; person: Account }> {
  const t = await createTestApp(dialect, options);
  return { t, pub: await register(t), conf: await registerConfidential(t), person: await createPerson(t) };
}
