/**
 * Access tokens and the issuing transaction. A token set is written only while its grant is
 * live: the grant row is touched first (`revoked_at IS NULL`), so a concurrent revocation either
 * blocks until the tokens are committed (and then revokes them) or makes issuance fail.
 */
import type { Kysely } from 'kysely';
import { prepared, preparedInsert } from './prepared.js';
import type { AccessToken, Database, RefreshToken } from './schema.js';

const accessByHash = prepared((db, tokenHash: string) =>
  db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash),
);
const touchGrant = prepared((db, grantId: string, now: number) =>
  db
    .updateTable('grants')
    .set({ last_used_at: now })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .returning('auth_time'),
);
const insertAccess = preparedInsert('access_tokens');
const insertRefresh = preparedInsert('refresh_tokens');
const revokeAccess = prepared((db, tokenHash: string, clientId: string, now: number) =>
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

/**
 * Marks the grant used now and answers when its person authenticated (the ID token's
 * auth_time); undefined when the grant is revoked (or gone).
 */
export function touchLiveGrant(
  db: Kysely<Database>,
  grantId: string,
  now: number,
): Promise<{ auth_time: number } | undefined> {
  return touchGrant.first(db, grantId, now);
}

/** Writes an access token and, when given, a refresh token. */
export async function insertTokenSet(
  db: Kysely<Database>,
  access: AccessToken,
  refresh: RefreshToken | undefined,
): Promise<void> {
  await insertAccess(db, access);
  if (refresh) await insertRefresh(db, refresh);
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
