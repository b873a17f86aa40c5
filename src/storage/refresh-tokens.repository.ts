import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { Database, RefreshToken } from './schema.js';

const byHash = prepared((db, tokenHash: string) =>
  db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash),
);
const rotate = prepared((db, tokenHash: string, now: number) =>
  db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now })
    .where('token_hash', '=', tokenHash)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll(),
);

export function findRefreshToken(db: Kysely<Database>, tokenHash: string): Promise<RefreshToken | undefined> {
  return byHash.first(db, tokenHash);
}

/**
 * Marks a live refresh token rotated, once (the atomic step of rotation). Undefined when another
 * request rotated it first, or it is revoked.
 */
export function markRotated(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
): Promise<RefreshToken | undefined> {
  return rotate.first(db, tokenHash, now);
}
