/**
 * The issuance section (../contract/issuance.ts) on PostgreSQL: a spend and everything it issues
 * as one statement of data-modifying CTEs (issuance-statements.repository.ts), one round trip.
 */
import type { Kysely } from 'kysely';
import type { Issuance } from '../contract/issuance.js';
import { insertGrantWithTokens, revokeGrantWithAudit } from '../grants.repository.js';
import { redeemCodeAndIssue, rotateRefreshTokenAndIssue } from '../issuance-statements.repository.js';
import type { Database } from '../schema.js';

export function postgresIssuance(db: Kysely<Database>): Issuance {
  return {
    redeemCode: (codeHash, grantId, w) => redeemCodeAndIssue(db, codeHash, grantId, w),
    rotateRefreshToken: (tokenHash, grantId, sealed, w) =>
      rotateRefreshTokenAndIssue(db, tokenHash, grantId, sealed, w),
    issueGrant: (grant, w) => insertGrantWithTokens(db, grant, w),
    revokeGrant: (grantId, now, audit) => revokeGrantWithAudit(db, grantId, now, audit),
  };
}
