/**
 * Access tokens and the issuing transaction. A token set is written only while its grant is
 * live: the grant row is touched first (`revoked_at IS NULL`), so a concurrent revocation either
 * blocks until the tokens are committed (and then revokes them) or makes issuance fail.
 */
import type { Kysely } from 'kysely';
import { prepared, preparedInsert } from './prepared.js';
import type { AccessToken, Database } from './schema.js';

const accessByHash = prepared((db, tokenHash: string) =>
  db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash),
);
export const touchGrant = prepared((db, grantId: string, now: number) =>
  db
    .updateTable('grants')
    .set({ last_used_at: now })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .returning('auth_time'),
);
export const insertAccess = preparedInsert('access_tokens');
export const insertRefresh = preparedInsert('refresh_tokens');
export const revokeAccess = prepared((db, tokenHash: string, clientId: string, now: number) =>
  db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('token_hash', '=', tokenHash)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .returning(['grant_id', 'account_id']),
);
const authTimeOfGrant = prepared((db, grantId: string) =>
  db.selectFrom('grants').select('auth_time').where('id', '=', grantId),
);

export function findAccessTokenByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessToken | undefined> {
  return accessByHash.first(db, tokenHash);
}

/** Revokes one live access token of a client; answers its grant and account, undefined when none was. */
export function revokeAccessToken(
  db: Kysely<Database>,
  tokenHash: string,
  clientId: string,
  now: number,
): Promise<Pick<AccessToken, 'grant_id' | 'account_id'> | undefined> {
  return revokeAccess.first(db, tokenHash, clientId, now);
}

/** The time the person authenticated for a grant (the ID token's auth_time). */
export async function grantAuthTime(db: Kysely<Database>, grantId: string): Promise<number | undefined> {
  return (await authTimeOfGrant.first(db, grantId))?.auth_time;
}
