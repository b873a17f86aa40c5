/**
 * The audit trail of security events (docs/security.md "Audit trail"). Each row says what happened, to whom, through
 * which client, from where, and when. A detail never holds a secret.
 */
import { countAuditEvent } from '../ops/metrics.js';
import type { AuditEventRow } from '../storage/schema.js';
import type { Store } from '../storage/store.js';

/** Every kind of audit event, in the order `schoolauth audit list --help` names them. */
export const AUDIT_KINDS = [
  'signin.success',
  'signin.failure',
  'signout',
  'consent.granted',
  'consent.denied',
  'grant.revoked',
  'code.issued',
  'token.issued',
  'token.refreshed',
  'token.revoked',
  'code.replayed',
  'refresh.reused',
  'client.registered',
  'client.created',
  'client.disabled',
  'client.enabled',
  'client_metadata.fetched',
  'client_metadata.refused',
  'client_metadata.rule_set',
  'client_metadata.rule_cleared',
  'key.rotated',
  'key.sealed',
  'account.created',
  'account.disabled',
  'account.enabled',
  'account.joined',
  'account.password_reset',
] as const;

export type AuditKind = (typeof AUDIT_KINDS)[number];

export interface AuditInput {
  readonly kind: AuditKind;
  readonly accountId?: string | null;
  readonly clientId?: string | null;
  readonly ip?: string | null;
  readonly detail?: Readonly<Record<string, string | number | boolean | null>>;
}

export async function recordAudit(
  store: Pick<Store, 'audit'>,
  event: AuditInput,
  now: number,
): Promise<void> {
  await store.audit.record(auditRow(event, now));
  auditWritten(event.kind);
}

/**
 * The row recordAudit writes, for a statement that writes it together with what it records
 * (PostgreSQL's data-modifying CTEs, docs/performance.md "PostgreSQL"); the caller calls
 * auditWritten once the statement says the row was written.
 */
export function auditRow(event: AuditInput, now: number): AuditEventRow {
  return {
    at: now,
    kind: event.kind,
    account_id: event.accountId ?? null,
    client_id: event.clientId ?? null,
    ip: event.ip ?? null,
    detail: JSON.stringify(event.detail ?? {}),
  };
}

/** Counts an audit event written by another statement than recordAudit's (src/ops/metrics.ts). */
export function auditWritten(kind: AuditKind): void {
  countAuditEvent(kind);
}
