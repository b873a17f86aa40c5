/**
 * A grant revoked with every token it issued, inside a SQLite store operation: the grant first,
 * then its access tokens, then its refresh tokens with their sealed successors, the order every
 * write to a grant's rows keeps on PostgreSQL (docs/security.md "Lock order"; on SQLite the
 * operation holds the write lock from its BEGIN, so the order is only kept for sameness).
 */
import { prepared } from '../prepared.js';
import type { SyncSql } from './connection.js';

const revokeGrant = prepared((db, grantId: string, now: number) =>
  db.updateTable('grants').set({ revoked_at: now }).where('id', '=', grantId).where('revoked_at', 'is', null),
);
const revokeAccessTokens = prepared((db, grantId: string, now: number) =>
  db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('grant_id', '=', grantId)
    .where('revoked_at', 'is', null),
);
const revokeRefreshTokens = prepared((db, grantId: string, now: number) =>
  db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now, successor: null })
    .where('grant_id', '=', grantId)
    .where('revoked_at', 'is', null),
);

export function revokeGrantNow(sql: SyncSql, grantId: string, now: number): void {
  revokeGrant.runNow(sql, grantId, now);
  revokeAccessTokens.runNow(sql, grantId, now);
  revokeRefreshTokens.runNow(sql, grantId, now);
}
