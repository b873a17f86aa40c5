/**
 * The refresh_token grant's rotation writes (refresh-token.ts), all or nothing: the presented
 * token marked rotated with its sealed successor, the grant's liveness checked and touched, the
 * successor pair and the audit row inserted. SQLite runs them in steps in one transaction;
 * PostgreSQL as one statement (one round trip), with the client's last use.
 */
import { auditWritten, recordAudit } from '../../../audit/audit.js';
import type { AppContext } from '../../../context.js';
import { dialectOf } from '../../../storage/dialect.js';
import { rotateRefreshTokenAndIssue } from '../../../storage/issuance-statements.repository.js';
import { markRotated } from '../../../storage/refresh-tokens.repository.js';
import type { RefreshToken } from '../../../storage/schema.js';
import { insertTokenSet, touchLiveGrant } from '../../../storage/tokens.repository.js';
import { inTransaction } from '../../../storage/transaction.js';
import { issuanceWrites, type TokenSetWrites } from '../issue.js';

/** Why a rotation wrote no tokens: another request rotated the token first (or it is revoked), or the grant is revoked. */
export type NoRotation = 'lost' | 'revoked';

export interface RotationWrites extends TokenSetWrites {
  readonly tokenHash: string;
  readonly grantId: string;
  readonly sealed: string;
  /** A rotation always issues the successor refresh token. */
  readonly refresh: RefreshToken;
}

/**
 * SQLite: rotation and its audit row in one transaction: one commit, and no tokens without their
 * audit row. The grant first, as every write to a grant's rows (docs/security.md "Lock order");
 * a rotation lost to another request has still used the grant (it answers that request's pair).
 */
function rotateInSteps(
  ctx: AppContext,
  w: RotationWrites,
): Promise<NoRotation | { authTime: number; clientUseRecorded: boolean }> {
  return inTransaction(ctx.db, async (trx) => {
    const grant = await touchLiveGrant(trx, w.grantId, w.now);
    if (!(await markRotated(trx, w.tokenHash, w.now, w.sealed))) return 'lost' as const;
    if (!grant) return 'revoked' as const;
    await insertTokenSet(trx, w.access, w.refresh);
    await recordAudit(trx, w.audit, w.now);
    return { authTime: grant.auth_time, clientUseRecorded: false };
  });
}

/**
 * PostgreSQL: the same writes, with markRotated's and touchLiveGrant's conditions, as one
 * statement of data-modifying CTEs (src/storage/issuance-statements.repository.ts), the client's
 * last use with them. A token rotated first by a concurrent request (on any instance: the row
 * lock decides) or revoked rotates nothing and writes nothing: 'lost', as markRotated answered.
 */
async function rotateInOneStatement(
  ctx: AppContext,
  w: RotationWrites,
): Promise<NoRotation | { authTime: number; clientUseRecorded: boolean }> {
  const outcome = await rotateRefreshTokenAndIssue(
    ctx.db,
    w.tokenHash,
    w.grantId,
    w.sealed,
    issuanceWrites(w),
  );
  if (!outcome.spent) return 'lost';
  if (outcome.authTime === undefined) return 'revoked';
  auditWritten(w.audit.kind);
  return { authTime: outcome.authTime, clientUseRecorded: true };
}

/** Writes a rotation the way this database does it in the fewest round trips. */
export function writeRotation(
  ctx: AppContext,
  w: RotationWrites,
): Promise<NoRotation | { authTime: number; clientUseRecorded: boolean }> {
  return dialectOf(ctx.db) === 'postgres' ? rotateInOneStatement(ctx, w) : rotateInSteps(ctx, w);
}
