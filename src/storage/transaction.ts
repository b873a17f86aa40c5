/**
 * `db.transaction().execute(work)`, rerun on PostgreSQL after a serialization failure or a
 * deadlock. On SQLite the transaction holds the connection's mutex from BEGIN IMMEDIATE to its
 * end (sqlite/driver.ts): no store operation or other query runs inside it.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';
import { StaleStatement } from './statement-names.js';

/**
 * Thrown by `inTransaction` called on a transaction (the request's own, src/oauth/
 * request-transaction.ts) when its work fails: the failure must roll the enclosing transaction
 * back, as it would have rolled back a transaction of its own, whatever error it was.
 */
export class NestedWorkFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('work inside the request transaction failed', { cause });
  }
}

export function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  // Already in the request's transaction (PostgreSQL): its work joins it, and a failure of the
  // work rolls the whole of it back.
  if (db.isTransaction) {
    return work(db as Transaction<Database>).catch((error: unknown) => {
      throw new NestedWorkFailed(error);
    });
  }
  return runWithRetries(() => db.transaction().execute(work));
}

/**
 * Attempts of one transaction on PostgreSQL, in all: the first and at most two reruns of the
 * whole of it after a serialization failure or a deadlock (docs/security.md "Lock order").
 */
export const TRANSACTION_ATTEMPTS = 3;

/** PostgreSQL SQLSTATEs (Appendix A) of a transaction rolled back so that it can be run again. */
const RERUN_SQLSTATES = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/** The error, or the one a nested inTransaction wrapped. */
const unwrapped = (error: unknown): unknown => (error instanceof NestedWorkFailed ? error.cause : error);

/**
 * Whether the transaction was rolled back as a whole by PostgreSQL and may simply run again:
 * serialization failure or deadlock (the server chose this transaction as the victim). Nothing
 * of it was committed, so its work runs again from the start, reads included.
 */
function mayRerun(error: unknown): boolean {
  const code = (unwrapped(error) as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RERUN_SQLSTATES.has(code);
}

/**
 * Runs the transaction, and again while PostgreSQL rolled it back to be rerun (mayRerun), up to
 * TRANSACTION_ATTEMPTS attempts, after a short jittered pause (so that two victims of one
 * deadlock do not meet again in step); the last failure is thrown, and storage/unavailable.ts
 * makes it 503 temporarily_unavailable. A transaction stopped by a stale named statement was also
 * rolled back whole: it runs once more on a connection that prepares its statements against the
 * schema as it is now.
 */
async function runWithRetries<T>(attempt: () => Promise<T>): Promise<T> {
  let reruns = 0;
  let staleRetried = false;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (stale(error) && !staleRetried) {
        staleRetried = true;
        continue;
      }
      if (!mayRerun(error) || reruns >= TRANSACTION_ATTEMPTS - 1) throw error;
      reruns += 1;
      await pause(reruns);
    }
  }
}

/** 5–15 ms before the first rerun, 10–30 ms before the second. */
const pause = (rerun: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, rerun * (5 + Math.random() * 10)));

/** A StaleStatement, also when a nested inTransaction wrapped it. */
const stale = (error: unknown): boolean => unwrapped(error) instanceof StaleStatement;
