import type { Kysely } from 'kysely';
import { dialectOf } from './dialect.js';
import { prepared } from './prepared.js';
import type { Database, RefreshToken } from './schema.js';

export const refreshByHash = prepared((db, tokenHash: string) =>
  db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash),
);
export const rotateOnce = prepared((db, tokenHash: string, now: number, successor: string) =>
  db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now, successor })
    .where('token_hash', '=', tokenHash)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll(),
);

export function findRefreshToken(db: Kysely<Database>, tokenHash: string): Promise<RefreshToken | undefined> {
  return refreshByHash.first(db, tokenHash);
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
  return rotateOnce.first(db, tokenHash, now, successor);
}

/**
 * Erases the sealed successor pairs of tokens rotated at or before `rotatedBefore` (the grace
 * window's start): after the window a repeat revokes the family, so nothing may open them again.
 * PostgreSQL: rows another transaction holds are skipped, not waited for (a revocation holding
 * them, grant first, erases their pairs itself), so the erasure never holds one of a grant's rows
 * while it waits on another (docs/security.md "Lock order"); the next run takes what is left.
 */
export async function eraseEndedSuccessors(db: Kysely<Database>, rotatedBefore: number): Promise<number> {
  const erase = db.updateTable('refresh_tokens').set({ successor: null });
  const result =
    dialectOf(db) === 'postgres'
      ? await erase
          .where(
            'token_hash',
            'in',
            db
              .selectFrom('refresh_tokens')
              .select('token_hash')
              .where('successor', 'is not', null)
              .where('rotated_at', '<', rotatedBefore)
              .forUpdate()
              .skipLocked(),
          )
          .executeTakeFirst()
      : await erase
          .where('successor', 'is not', null)
          .where('rotated_at', '<', rotatedBefore)
          .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
