import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { Database, RefreshToken } from './schema.js';

const byHash = prepared((db, tokenHash: string) =>
  db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash),
);
const rotate = prepared((db, tokenHash: string, now: number, successor: string) =>
  db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now, successor })
    .where('token_hash', '=', tokenHash)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll(),
);

export function findRefreshToken(db: Kysely<Database>, tokenHash: string): Promise<RefreshToken | undefined> {
  return byHash.first(db, tokenHash);
}

/**
 * Marks a live refresh token rotated, once (the atomic step of rotation), keeping its sealed
 * successor pair for the grace window. Undefined when another request rotated it first, or it is
 * revoked.
 */
export function markRotated(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
  successor: string,
): Promise<RefreshToken | undefined> {
  return rotate.first(db, tokenHash, now, successor);
}

/**
 * Erases the sealed successor pairs of tokens rotated at or before `rotatedBefore` (the grace
 * window's start): after the window a repeat revokes the family, so nothing may open them again.
 */
export async function eraseEndedSuccessors(db: Kysely<Database>, rotatedBefore: number): Promise<number> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ successor: null })
    .where('successor', 'is not', null)
    .where('rotated_at', '<', rotatedBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
