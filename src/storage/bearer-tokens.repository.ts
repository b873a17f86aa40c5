import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { AccessToken, Database } from './schema.js';

/** What judging a bearer token needs of its row (not the hash and grant it was looked up by). */
export type BearerToken = Pick<
  AccessToken,
  'client_id' | 'account_id' | 'scopes' | 'resource' | 'created_at' | 'expires_at' | 'revoked_at' | 'jkt'
>;
export type AccessTokenWithAccount = BearerToken & { account_disabled: number | null };

/**
 * The one indexed lookup behind every bearer request: the token row by its hash (primary key)
 * joined to its account by primary key, so a disabled account is refused without a second query.
 */
export const bearerWithAccount = prepared((db, tokenHash: string) =>
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

export function findBearerToken(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessTokenWithAccount | undefined> {
  return bearerWithAccount.first(db, tokenHash);
}
