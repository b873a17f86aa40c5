/**
 * Real access tokens for tests, minted by inserting the rows the token endpoint would write (a
 * client, a grant, an access token stored by its key, `hashSecret`). The guard judges them
 * exactly like tokens from the full flow; the generated API matrix uses these for speed.
 */
import { hash, randomBytes } from 'node:crypto';
import { type MintedSecret, mintSecret, randomId, TOKEN_PREFIX } from '../../src/crypto/tokens.js';
import { findClient, insertClient } from '../../src/storage/clients.repository.js';
import type { TestApp } from './app.js';

export const TEST_CLIENT_ID = 'test-client';

export interface MintOptions {
  readonly accountId: string;
  readonly scopes: readonly string[];
  /** Audience; default the issuer. */
  readonly resource?: string;
  /** Seconds until expiry (default 3600). */
  readonly ttl?: number;
  readonly revoked?: boolean;
  /** A token as issued before stamps (prefix and 43 characters, stored by its SHA-256 alone). */
  readonly unstamped?: boolean;
}

async function ensureClient(t: TestApp): Promise<void> {
  if (await findClient(t.ctx.db, TEST_CLIENT_ID)) return;
  await insertClient(t.ctx.db, {
    id: TEST_CLIENT_ID,
    kind: 'dynamic',
    name: 'Test client',
    application_type: 'native',
    redirect_uris: JSON.stringify(['http://127.0.0.1:9/cb']),
    token_endpoint_auth_method: 'none',
    secret_hash: null,
    grant_types: JSON.stringify(['authorization_code', 'refresh_token']),
    response_types: JSON.stringify(['code']),
    metadata: '{}',
    id_token_signed_response_alg: 'RS256',
    disabled: 0,
    created_at: t.clock.now(),
    last_used_at: null,
  });
}

function unstampedToken(): MintedSecret {
  const value = `${TOKEN_PREFIX.accessToken}${randomBytes(32).toString('base64url')}`;
  return { value, hash: hash('sha256', value, 'base64url') };
}

/** Mints an access token for the account with exactly these scopes; returns the bearer value. */
export async function mintAccessToken(t: TestApp, options: MintOptions): Promise<string> {
  await ensureClient(t);
  const now = t.clock.now();
  const grantId = randomId('grt_');
  const scopes = options.scopes.join(' ');
  const resource = options.resource ?? t.config.issuer;
  const token = options.unstamped ? unstampedToken() : mintSecret('accessToken');
  await t.ctx.db
    .insertInto('grants')
    .values({
      id: grantId,
      account_id: options.accountId,
      client_id: TEST_CLIENT_ID,
      scopes,
      resource,
      nonce: null,
      auth_time: now,
      created_at: now,
      last_used_at: now,
      revoked_at: null,
    })
    .execute();
  await t.ctx.db
    .insertInto('access_tokens')
    .values({
      token_hash: token.hash,
      grant_id: grantId,
      client_id: TEST_CLIENT_ID,
      account_id: options.accountId,
      scopes,
      resource,
      created_at: now,
      expires_at: now + (options.ttl ?? 3600),
      revoked_at: options.revoked ? now : null,
    })
    .execute();
  return token.value;
}

export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` });
