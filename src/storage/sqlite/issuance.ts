/**
 * The issuance section (../contract/issuance.ts) on SQLite: each operation one transaction,
 * statement by statement, the grant first. A concurrent spend waits for the database's write
 * lock, then finds the code consumed (the token rotated) and writes nothing.
 */
import type { Kysely } from 'kysely';
import { insertAuditRow } from '../audit.repository.js';
import { touchClientNow } from '../clients.repository.js';
import { consumeCode } from '../codes.repository.js';
import type { Issuance, IssuanceOutcome, IssuanceWrites } from '../contract/issuance.js';
import { insertGrantWithTokens, revokeGrantWithAudit } from '../grants.repository.js';
import { markRotated } from '../refresh-tokens.repository.js';
import type { Database } from '../schema.js';
import { insertTokenSet, touchLiveGrant } from '../tokens.repository.js';
import { inTransaction } from '../transaction.js';

/** Spends with `spend` inside one transaction, then writes the set when the grant was live. */
function spendAndIssue(
  db: Kysely<Database>,
  grantId: string,
  spend: (trx: Kysely<Database>) => Promise<boolean>,
  w: IssuanceWrites,
): Promise<IssuanceOutcome> {
  return inTransaction(db, async (trx) => {
    const grant = await touchLiveGrant(trx, grantId, w.now);
    if (!(await spend(trx))) return { spent: false, authTime: undefined };
    if (!grant) return { spent: true, authTime: undefined };
    await insertTokenSet(trx, w.access, w.refresh);
    await insertAuditRow(trx, w.audit);
    if (w.touchClientId !== undefined) await touchClientNow(trx, w.touchClientId, w.now);
    return { spent: true, authTime: grant.auth_time };
  });
}

export function sqliteIssuance(db: Kysely<Database>): Issuance {
  return {
    redeemCode: (codeHash, grantId, w) =>
      spendAndIssue(db, grantId, async (trx) => (await consumeCode(trx, codeHash, w.now)) !== undefined, w),
    rotateRefreshToken: (tokenHash, grantId, sealed, w) =>
      spendAndIssue(
        db,
        grantId,
        async (trx) => (await markRotated(trx, tokenHash, w.now, sealed)) !== undefined,
        w,
      ),
    issueGrant: (grant, w) => insertGrantWithTokens(db, grant, w),
    revokeGrant: (grantId, now, audit) => revokeGrantWithAudit(db, grantId, now, audit),
  };
}
