import { CompiledQuery, type Kysely } from 'kysely';
import type { AccessToken, Database } from './schema.js';

export type AccessTokenWithAccount = AccessToken & { account_disabled: number | null };

// Every protected request runs this one query: it is compiled once per database and reused with
// a new parameter, which saves building and compiling the same SQL on the hot path.
const compiled = new WeakMap<Kysely<Database>, CompiledQuery<AccessTokenWithAccount>>();

function lookupQuery(db: Kysely<Database>): CompiledQuery<AccessTokenWithAccount> {
  let query = compiled.get(db);
  if (!query) {
    query = db
      .selectFrom('access_tokens')
      .leftJoin('accounts', 'accounts.id', 'access_tokens.account_id')
      .selectAll('access_tokens')
      .select('accounts.disabled as account_disabled')
      .where('access_tokens.token_hash', '=', '')
      .compile();
    compiled.set(db, query);
  }
  return query;
}

/**
 * The one indexed lookup behind every bearer request: the token row by its hash (primary key)
 * joined to its account by primary key, so a disabled account is refused without a second query.
 */
export async function findAccessTokenWithAccount(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessTokenWithAccount | undefined> {
  const query = lookupQuery(db);
  const result = await db.executeQuery(
    CompiledQuery.raw(query.sql, [tokenHash]) as CompiledQuery<AccessTokenWithAccount>,
  );
  return result.rows[0];
}
