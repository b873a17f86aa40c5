import type { Kysely } from 'kysely';
import type { AuditEvent, Database } from './schema.js';

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
