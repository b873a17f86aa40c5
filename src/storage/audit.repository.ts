import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { AuditEvent, AuditEventRow, Database } from './schema.js';
import type { SyncSql } from './sqlite/connection.js';

// Every column, always: one statement, and no per-call column list to build and look up.
const insertEvent = prepared(
  (
    db,
    at: number,
    kind: string,
    accountId: string | null,
    clientId: string | null,
    ip: string | null,
    detail: string,
  ) =>
    db
      .insertInto('audit_events')
      .values({ at, kind, account_id: accountId, client_id: clientId, ip, detail }),
);

/** Writes one audit event's row (built by src/audit/audit.ts `auditRow`). */
export async function insertAuditRow(db: Kysely<Database>, row: AuditEventRow): Promise<void> {
  await insertEvent.run(db, row.at, row.kind, row.account_id, row.client_id, row.ip, row.detail);
}

/** insertAuditRow inside a SQLite store operation (sqlite/connection.ts). */
export function insertAuditRowNow(sql: SyncSql, row: AuditEventRow): void {
  insertEvent.runNow(sql, row.at, row.kind, row.account_id, row.client_id, row.ip, row.detail);
}

export interface AuditFilter {
  readonly accountId?: string;
  readonly clientId?: string;
  readonly since?: number;
  readonly kind?: string;
  readonly limit: number;
}

/** Newest first, with the account's email when the account still exists. */
export function listAuditEvents(
  db: Kysely<Database>,
  filter: AuditFilter,
): Promise<Array<AuditEvent & { account_email: string | null }>> {
  let query = db
    .selectFrom('audit_events')
    .leftJoin('accounts', 'accounts.id', 'audit_events.account_id')
    .selectAll('audit_events')
    .select('accounts.email as account_email');
  if (filter.accountId !== undefined) query = query.where('audit_events.account_id', '=', filter.accountId);
  if (filter.clientId !== undefined) query = query.where('audit_events.client_id', '=', filter.clientId);
  if (filter.since !== undefined) query = query.where('audit_events.at', '>=', filter.since);
  if (filter.kind !== undefined) query = query.where('audit_events.kind', '=', filter.kind);
  return query
    .orderBy('audit_events.at', 'desc')
    .orderBy('audit_events.id', 'desc')
    .limit(filter.limit)
    .execute();
}
