import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { AccessToken, Database } from './schema.js';

export type AccessTokenWithAccount = AccessToken & { account_disabled: number | null };

const withAccount = prepared((db, tokenHash: string) =>
  db
    .selectFrom('access_tokens')
    .leftJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .selectAll('access_tokens')
    .select('accounts.disabled as account_disabled')
    .where('access_tokens.token_hash', '=', tokenHash),
);

/**
 * The one indexed lookup behind every bearer request: the token row by its hash (primary key)
 * joined to its account by primary key, so a disabled account is refused without a second query.
 */
export function findAccessTokenWithAccount(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessTokenWithAccount | undefined> {
  return withAccount.first(db, tokenHash);
}
