/**
 * The token endpoint's reads on PostgreSQL (docs/performance.md "PostgreSQL"): the client and the
 * code or refresh token the request presents, in one statement instead of two. Client
 * authentication and every check of the code or token run on these rows as they ran on the two
 * reads (src/oauth/client-auth.ts `read`, the grants). SQLite keeps its separate reads.
 */
import { type Kysely, sql } from 'kysely';
import type { ClientWith } from './contract/clients.js';
import { prepared } from './prepared.js';
import type { AuthorizationCode, Client, Database, RefreshToken } from './schema.js';

// to_jsonb of the joined row: the row itself, or null when no row matched. Every column is text
// or an int8 of epoch seconds, which JSON carries as the same string or number.
const withCode = prepared((db, clientId: string, codeHash: string) =>
  db
    .selectFrom('clients')
    .leftJoin('authorization_codes', (join) => join.on('authorization_codes.code_hash', '=', codeHash))
    .selectAll('clients')
    .select(sql<AuthorizationCode | null>`to_jsonb(authorization_codes)`.as('joined'))
    .where('clients.id', '=', clientId),
);

const withRefreshToken = prepared((db, clientId: string, tokenHash: string) =>
  db
    .selectFrom('clients')
    .leftJoin('refresh_tokens', (join) => join.on('refresh_tokens.token_hash', '=', tokenHash))
    .selectAll('clients')
    .select(sql<RefreshToken | null>`to_jsonb(refresh_tokens)`.as('joined'))
    .where('clients.id', '=', clientId),
);

function split<T>(found: (Client & { joined: T | null }) | undefined): ClientWith<T> {
  if (!found) return { client: undefined, row: undefined };
  const { joined, ...client } = found;
  return { client, row: joined ?? undefined };
}

/** The client and the authorization code with this key. */
export async function findClientWithCode(
  db: Kysely<Database>,
  clientId: string,
  codeHash: string,
): Promise<ClientWith<AuthorizationCode>> {
  // As findClient: an id with a NUL character cannot exist (PostgreSQL refuses it in text).
  if (clientId.includes('\u0000')) return { client: undefined, row: undefined };
  return split(await withCode.first(db, clientId, codeHash));
}

/** The client and the refresh token with this key. */
export async function findClientWithRefreshToken(
  db: Kysely<Database>,
  clientId: string,
  tokenHash: string,
): Promise<ClientWith<RefreshToken>> {
  if (clientId.includes('\u0000')) return { client: undefined, row: undefined };
  return split(await withRefreshToken.first(db, clientId, tokenHash));
}
