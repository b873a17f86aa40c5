/**
 * Which failures mean "the database cannot serve right now" rather than "this request is wrong"
 * or "the code is wrong": PostgreSQL unreachable, restarting or timing out, SQLite's disk full or
 * failing, a lock held too long. They answer 503 `temporarily_unavailable` with Retry-After
 * (src/http/error-handler.ts), since the same request can succeed once the fault is gone; every other
 * unknown error stays a bodyless 500. Knows both dialects' errors, so nothing above does.
 */

import { StaleStatement } from './statement-names.js';

export type UnavailableReason = 'unreachable' | 'timeout' | 'busy' | 'disk_full' | 'io_error';

/** Socket errors of a connection that is gone or cannot be made (Node's `code`). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** PostgreSQL SQLSTATEs (Appendix A) that say the server, not the statement, is the problem. */
const SQLSTATE_REASONS: Readonly<Record<string, UnavailableReason>> = {
  '57P01': 'unreachable', // admin_shutdown: the server is stopping (pg_ctl stop -m fast)
  '57P02': 'unreachable', // crash_shutdown
  '57P03': 'unreachable', // cannot_connect_now: starting up or shutting down
  '57014': 'timeout', // query_canceled (statement_timeout)
  '53300': 'busy', // too_many_connections
  '53200': 'busy', // out_of_memory
  '53100': 'disk_full', // disk_full
  '55P03': 'busy', // lock_not_available (lock_timeout)
  // serialization_failure, deadlock_detected: still so after transaction.ts reran the transaction
  '40001': 'busy',
  '40P01': 'busy',
};

/** node-postgres's own errors carry no code; these are its messages for a lost or late connection. */
const PG_MESSAGES: ReadonlyArray<readonly [RegExp, UnavailableReason]> = [
  [/^Connection terminated due to connection timeout/, 'timeout'],
  [/^Connection terminated/, 'unreachable'],
  [/not queryable/, 'unreachable'],
  [/^timeout exceeded when trying to connect/, 'timeout'],
  [/^Query read timeout/, 'timeout'],
  [/^timeout expired/, 'timeout'],
];

function sqliteReason(code: string): UnavailableReason | undefined {
  if (code === 'SQLITE_FULL') return 'disk_full';
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) return 'io_error';
  // A file system remounted read-only after errors.
  if (code.startsWith('SQLITE_READONLY')) return 'io_error';
  // Another process held the lock past busy_timeout; or SQLite rolled a transaction back itself.
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code === 'SQLITE_ABORT')
    return 'busy';
  return undefined;
}

function reasonOf(error: object): UnavailableReason | undefined {
  // A named statement found stale twice (its retry met another schema change): the next try
  // prepares against the schema as it is then.
  if (error instanceof StaleStatement) return 'busy';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_')) return sqliteReason(code);
    if (NETWORK_CODES.has(code)) return 'unreachable';
    // A file the service writes (an upload beside the database) on a full disk.
    if (code === 'ENOSPC' || code === 'EDQUOT') return 'disk_full';
    // SQLSTATE class 08: connection exception.
    if (/^[0-9A-Z]{5}$/.test(code)) return code.startsWith('08') ? 'unreachable' : SQLSTATE_REASONS[code];
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string') return PG_MESSAGES.find(([pattern]) => pattern.test(message))?.[1];
  return undefined;
}

/**
 * Why the database could not serve, when `error` (or an error it wraps: `cause`, the errors of an
 * AggregateError) says so; undefined for every other error.
 */
export function whyUnavailable(error: unknown, depth = 0): UnavailableReason | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const reason = reasonOf(error);
  if (reason) return reason;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  const nested = [cause, ...(Array.isArray(errors) ? errors : [])];
  for (const inner of nested) {
    const found = whyUnavailable(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}
