import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { AccessToken, Database } from './schema.js';
import { ReadCache } from './sqlite/read-cache.js';
import type { ReadNow } from './sqlite/read-now.js';

/** What judging a bearer token needs of its row (not the hash and grant it was looked up by). */
export type BearerToken = Pick<
  AccessToken,
  'client_id' | 'account_id' | 'scopes' | 'resource' | 'created_at' | 'expires_at' | 'revoked_at' | 'jkt'
>;
export type AccessTokenWithAccount = BearerToken & { account_disabled: number | null };

const withAccount = prepared((db, tokenHash: string) =>
  db
    .selectFrom('access_tokens')
    .leftJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .select([
      'access_tokens.client_id',
      'access_tokens.account_id',
      'access_tokens.scopes',
      'access_tokens.resource',
      'access_tokens.created_at',
      'access_tokens.expires_at',
      'access_tokens.revoked_at',
      'access_tokens.jkt',
    ])
    .select('accounts.disabled as account_disabled')
    .where('access_tokens.token_hash', '=', tokenHash),
);

// Sized for the tokens in use at once on one server; ~200 bytes each.
const recent = new ReadCache<AccessTokenWithAccount>(['access_tokens', 'accounts'], 10_000);

/**
 * The one indexed lookup behind every bearer request: the token row by its hash (primary key)
 * joined to its account by primary key, so a disabled account is refused without a second query.
 * Read now, on SQLite, when the connection is free: from the rows kept while neither table has
 * changed (sqlite/read-cache.ts), else by the query. NOT_NOW otherwise: call `findBearerToken`.
 */
export function findBearerTokenNow(
  db: Kysely<Database>,
  tokenHash: string,
): ReadNow<AccessTokenWithAccount | undefined> {
  return recent.read(db, tokenHash, () => withAccount.firstNow(db, tokenHash));
}

/** The same lookup as a promise; read now when it can be. */
export function findBearerToken(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessTokenWithAccount | undefined> {
  try {
    const found = findBearerTokenNow(db, tokenHash);
    return found.now ? Promise.resolve(found.value) : withAccount.first(db, tokenHash);
  } catch (error) {
    return Promise.reject(error);
  }
}
