/**
 * A dynamic registration's writes as one statement on PostgreSQL (docs/performance.md
 * "PostgreSQL"): the client row and its audit row, both or neither, in one round trip and one
 * transaction without BEGIN or COMMIT (a statement is a transaction of its own). SQLite writes
 * the two rows in a transaction of its own (src/oauth/register.ts).
 */
import { type Kysely, sql } from 'kysely';
import { executeFixed } from './fixed-statements.js';
import type { AuditEventRow, Client, Database } from './schema.js';
import { insertRow, insertRowFor } from './statement-parts.js';

/** Inserts the client and its audit row; the audit row is written for the inserted client only. */
export async function insertClientWithAudit(
  db: Kysely<Database>,
  client: Client,
  audit: AuditEventRow,
): Promise<void> {
  await executeFixed(
    db,
    sql`with registered as (${insertRow('clients', client)} returning id)
    ${insertRowFor('audit_events', audit, 'registered')}`,
  );
}
