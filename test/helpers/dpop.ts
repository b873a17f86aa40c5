/**
 * Hand-made DPoP proofs (RFC 9449 §4.2) for tests: a key pair, and proofs signed with it whose
 * every part a test may override to make a refused one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { Account } from '../../src/storage/schema.js';
import type { TestApp } from './app.js';
import { clientCredentials, formBody, mintCode, type RegisteredClient, type TokenResponse } from './oauth.js';

export interface DpopKey {
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, privateKey, publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}

export interface ProofOptions {
  readonly htm?: string;
  readonly htu: string;
  readonly accessToken?: string;
  readonly nonce?: string;
  readonly iat?: number;
  readonly jti?: string;
  /** Claims to add or replace (undefined removes one). */
  readonly claims?: Record<string, unknown>;
  /** Protected-header members to add or replace. */
  readonly header?: Record<string, unknown>;
}

export const athOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

export async function makeProof(key: DpopKey, options: ProofOptions): Promise<string> {
  const claims: Record<string, unknown> = {
    jti: options.jti ?? randomUUID(),
    htm: options.htm ?? 'POST',
    htu: options.htu,
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    ...(options.accessToken !== undefined ? { ath: athOf(options.accessToken) } : {}),
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    ...options.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk, ...options.header } as never)
    .sign(key.privateKey);
}

/** A JWS with any header and payload, signed by nobody: for the refusals that never reach a signature. */
export function unsignedJws(header: unknown, payload: unknown = { jti: 'x' }): string {
  const part = (value: unknown) =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(payload)}.${Buffer.from('signature').toString('base64url')}`;
}

/** A code of `client` for `person` exchanged with a proof of `key`: DPoP-bound tokens. */
export async function dpopTokensFor(
  t: TestApp,
  client: RegisteredClient,
  person: Account,
  key: DpopKey,
  options: Parameters<typeof mintCode>[3] = {},
): Promise<TokenResponse> {
  const minted = await mintCode(t, client, person, options);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      dpop: await makeProof(key, { htu: `${t.config.issuer}/api/oauth/token` }),
    },
    payload: formBody({
      grant_type: 'authorization_code',
      code: minted.code,
      redirect_uri: minted.redirectUri,
      code_verifier: minted.verifier,
      ...(clientCredentials(client) as Record<string, string>),
    }),
  });
  if (res.statusCode !== 200) throw new Error(`DPoP code exchange failed: ${res.statusCode} ${res.body}`);
  return res.json() as TokenResponse;
}
