/** Rows for ops tests: clients, grants, codes, tokens and sessions written straight to storage. */
import type { Kysely } from 'kysely';
import { mintSecret, randomId } from '../../src/crypto/tokens.js';
import type { Client, ClientKind, Database } from '../../src/storage/schema.js';

export async function addAccount(db: Kysely<Database>, now: number): Promise<string> {
  const id = randomId('acc_');
  await db
    .insertInto('accounts')
    .values({
      id,
      email: `${id.toLowerCase()}@example.com`,
      name: 'Test',
      password_hash: 'x',
      locale: 'en',
      disabled: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/** A client row as a registration writes it. */
export function clientRow(
  id: string,
  kind: ClientKind,
  createdAt: number,
  lastUsedAt: number | null = null,
): Client {
  return {
    id,
    kind,
    name: `client ${id}`,
    application_type: 'native',
    redirect_uris: JSON.stringify(['http://127.0.0.1:9999/cb']),
    token_endpoint_auth_method: 'none',
    secret_hash: null,
    grant_types: '["authorization_code","refresh_token"]',
    response_types: '["code"]',
    metadata: '{}',
    id_token_signed_response_alg: 'RS256',
    disabled: 0,
    created_at: createdAt,
    last_used_at: lastUsedAt,
  };
}

export async function addClient(
  db: Kysely<Database>,
  kind: ClientKind,
  createdAt: number,
  lastUsedAt: number | null = null,
  /** The client_id; a metadata-document client's is its https URL. */
  id: string = kind === 'metadata_document'
    ? `https://${randomId('app').toLowerCase()}.example.com/client.json`
    : randomId(kind === 'dynamic' ? 'dyn_' : 'int_'),
): Promise<string> {
  await db
    .insertInto('clients')
    .values(clientRow(id, kind, createdAt, lastUsedAt))
    .execute();
  return id;
}

export async function addGrant(
  db: Kysely<Database>,
  accountId: string,
  clientId: string,
  createdAt: number,
  revokedAt: number | null = null,
): Promise<string> {
  const id = randomId('grt_');
  await db
    .insertInto('grants')
    .values({
      id,
      account_id: accountId,
      client_id: clientId,
      scopes: 'openid',
      resource: 'http://127.0.0.1:3000',
      nonce: null,
      auth_time: createdAt,
      created_at: createdAt,
      last_used_at: createdAt,
      revoked_at: revokedAt,
    })
    .execute();
  return id;
}

export async function addToken(
  db: Kysely<Database>,
  table: 'access_tokens' | 'refresh_tokens',
  grant: { id: string; accountId: string; clientId: string },
  createdAt: number,
  expiresAt: number,
): Promise<string> {
  const { hash } = mintSecret(table === 'access_tokens' ? 'accessToken' : 'refreshToken');
  await db
    .insertInto(table)
    .values({
      token_hash: hash,
      grant_id: grant.id,
      client_id: grant.clientId,
      account_id: grant.accountId,
      scopes: 'openid',
      resource: 'http://127.0.0.1:3000',
      created_at: createdAt,
      expires_at: expiresAt,
      revoked_at: null,
    })
    .execute();
  return hash;
}

export async function addCode(
  db: Kysely<Database>,
  grant: { id: string; accountId: string; clientId: string },
  createdAt: number,
  expiresAt: number,
  consumedAt: number | null = null,
): Promise<string> {
  const { hash } = mintSecret('code');
  await db
    .insertInto('authorization_codes')
    .values({
      code_hash: hash,
      grant_id: grant.id,
      client_id: grant.clientId,
      account_id: grant.accountId,
      redirect_uri: 'http://127.0.0.1:9999/cb',
      code_challenge: 'x',
      scopes: 'openid',
      resource: 'http://127.0.0.1:3000',
      nonce: null,
      auth_time: createdAt,
      created_at: createdAt,
      expires_at: expiresAt,
      consumed_at: consumedAt,
    })
    .execute();
  return hash;
}

export async function addSession(
  db: Kysely<Database>,
  accountId: string,
  createdAt: number,
  expiresAt: number,
): Promise<string> {
  const { hash } = mintSecret('session');
  await db
    .insertInto('sessions')
    .values({
      id_hash: hash,
      account_id: accountId,
      csrf_secret: 'x',
      auth_time: createdAt,
      created_at: createdAt,
      last_seen_at: createdAt,
      expires_at: expiresAt,
    })
    .execute();
  return hash;
}

export async function count(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
