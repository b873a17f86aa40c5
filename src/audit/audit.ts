/**
 * The audit trail of security events (SPEC §9). Each row says what happened, to whom, through
 * which client, from where, and when. A detail never holds a secret.
 */
import type { Kysely } from 'kysely';
import { countAuditEvent } from '../ops/metrics.js';
import { preparedInsert } from '../storage/prepared.js';
import type { Database } from '../storage/schema.js';

export type AuditKind =
  | 'signin.success'
  | 'signin.failure'
  | 'signout'
  | 'consent.granted'
  | 'consent.denied'
  | 'grant.revoked'
  | 'code.issued'
  | 'token.issued'
  | 'token.refreshed'
  | 'token.revoked'
  | 'code.replayed'
  | 'refresh.reused'
  | 'client.registered'
  | 'client.created'
  | 'client.disabled'
  | 'key.rotated'
  | 'account.created'
  | 'account.disabled'
  | 'account.password_reset';

export interface AuditInput {
  readonly kind: AuditKind;
  readonly accountId?: string | null;
  readonly clientId?: string | null;
  readonly ip?: string | null;
  readonly detail?: Readonly<Record<string, string | number | boolean | null>>;
}

const insertEvent = preparedInsert('audit_events');

export async function recordAudit(db: Kysely<Database>, event: AuditInput, now: number): Promise<void> {
  await insertEvent(db, {
    at: now,
    kind: event.kind,
    account_id: event.accountId ?? null,
    client_id: event.clientId ?? null,
    ip: event.ip ?? null,
    detail: JSON.stringify(event.detail ?? {}),
  });
  countAuditEvent(event.kind);
}
