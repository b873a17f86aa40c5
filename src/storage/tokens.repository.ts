/**
 * Access tokens and the issuing transaction. A token set is written only while its grant is
 * live: the grant row is touched first (`revoked_at IS NULL`), so a concurrent revocation either
 * blocks until the tokens are committed (and then revokes them) or makes issuance fail.
 */
import type { Kysely } from 'kysely';
import type { AccessToken, Database, RefreshToken } from './schema.js';

export function findAccessTokenByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessToken | undefined> {
  return db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks the grant used now; false when the grant is revoked (or gone). */
export async function touchLiveGrant(db: Kysely<Database>, grantId: string, now: number): Promise<boolean> {
  const row = await db
    .updateTable('grants')
    .set({ last_used_at: now })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Writes an access token and, when given, a refresh token. */
export async function insertTokenSet(
  db: Kysely<Database>,
  access: AccessToken,
  refresh: RefreshToken | undefined,
): Promise<void> {
  await db.insertInto('access_tokens').values(access).execute();
  if (refresh) await db.insertInto('refresh_tokens').values(refresh).execute();
}

/** Revokes one access token of a client; true when a live token was revoked. */
export async function revokeAccessToken(
  db: Kysely<Database>,
  tokenHash: string,
  clientId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('token_hash', '=', tokenHash)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The time the person authenticated for a grant (the ID token's auth_time). */
export async function grantAuthTime(db: Kysely<Database>, grantId: string): Promise<number | undefined> {
  const row = await db.selectFrom('grants').select('auth_time').where('id', '=', grantId).executeTakeFirst();
  return row?.auth_time;
}
