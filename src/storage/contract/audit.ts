/** The audit trail (docs/security.md "Audit trail"): rows written, and read back by the operator. */
import type { AuditFilter } from '../audit.repository.js';
import type { AuditEvent, AuditEventRow } from '../schema.js';

export type { AuditFilter };

export interface Audit {
  /** Writes one event's row (built by src/audit/audit.ts `auditRow`). */
  record(row: AuditEventRow): Promise<void>;
  /** Newest first, with the account's email when the account still exists. */
  list(filter: AuditFilter): Promise<Array<AuditEvent & { account_email: string | null }>>;
}
