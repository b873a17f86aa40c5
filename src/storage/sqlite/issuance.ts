/**
 * The issuance section (../contract/issuance.ts) on SQLite: each operation one synchronous
 * transaction (connection.ts), statement by statement, the grant first. A concurrent spend runs
 * before or after it, never inside: the second finds the code consumed (the token rotated) and
 * writes nothing.
 */
import { insertAuditRowNow } from '../audit.repository.js';
import { touchClientStatement } from '../clients.repository.js';
import { consumeCodeOnce } from '../codes.repository.js';
import type { Issuance, IssuanceOutcome, IssuanceWrites } from '../contract/issuance.js';
import { insertGrantWithTokens } from '../grants.repository.js';
import { rotateOnce } from '../refresh-tokens.repository.js';
import { insertAccess, insertRefresh, touchGrant } from '../tokens.repository.js';
import type { SqliteConnection, SyncSql } from './connection.js';
import { revokeGrantNow } from './grant-revocation.js';

/** Spends with `spend`, then writes the set when the grant was live. */
function spendAndIssue(
  sql: SyncSql,
  grantId: string,
  spend: () => boolean,
  w: IssuanceWrites,
): IssuanceOutcome {
  const grant = touchGrant.firstNow(sql, grantId, w.now);
  if (!spend()) return { spent: false, authTime: undefined };
  if (!grant) return { spent: true, authTime: undefined };
  insertAccess.now(sql, w.access);
  if (w.refresh) insertRefresh.now(sql, w.refresh);
  insertAuditRowNow(sql, w.audit);
  if (w.touchClientId !== undefined) touchClientStatement.runNow(sql, w.touchClientId, w.now);
  return { spent: true, authTime: grant.auth_time };
}

export function sqliteIssuance(connection: SqliteConnection): Issuance {
  return {
    redeemCode: (codeHash, grantId, w) =>
      connection.later((sql) =>
        spendAndIssue(sql, grantId, () => consumeCodeOnce.firstNow(sql, codeHash, w.now) !== undefined, w),
      ),
    rotateRefreshToken: (tokenHash, grantId, sealed, w) =>
      connection.later((sql) =>
        spendAndIssue(
          sql,
          grantId,
          () => rotateOnce.firstNow(sql, tokenHash, w.now, sealed) !== undefined,
          w,
        ),
      ),
    issueGrant: (grant, w) => insertGrantWithTokens(connection.db, grant, w),
    revokeGrant: (grantId, now, audit) =>
      connection.later((sql) => {
        revokeGrantNow(sql, grantId, now);
        insertAuditRowNow(sql, audit);
      }),
  };
}
