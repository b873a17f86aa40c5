/**
 * `db.transaction().execute(work)`, with the transaction's prepared queries run at once on SQLite
 * (sqlite/driver.ts): inside a transaction every query otherwise goes through Kysely's executor
 * and connection provider, a chain of promises per query, while the connection is this
 * transaction's anyway; and, when the connection is free, the transaction itself begun at once
 * (sqlite/transaction-now.ts). On PostgreSQL it is Kysely's transaction, unchanged.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';
import { allowImmediateInTransaction } from './sqlite/driver.js';
import { transactionNow } from './sqlite/transaction-now.js';
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
  // SQLite with its connection free: begun now, without Kysely's connection provider.
  const now = transactionNow(db, work);
  if (now) return now;
  const attempt = () =>
    db.transaction().execute((trx) => {
      allowImmediateInTransaction(db, trx);
      return work(trx);
    });
  // PostgreSQL: a transaction stopped by a stale named statement was rolled back whole; it runs
  // once more on a connection that prepares its statements against the schema as it is now.
  return attempt().catch((error: unknown) => (stale(error) ? attempt() : Promise.reject(error)));
}

/** A StaleStatement, also when a nested inTransaction wrapped it. */
const stale = (error: unknown): boolean =>
  error instanceof StaleStatement ||
  (error instanceof NestedWorkFailed && error.cause instanceof StaleStatement);
