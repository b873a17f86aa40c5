/**
 * A transaction begun at once on SQLite when nothing holds the connection, without Kysely's
 * connection provider: Kysely's `transaction().execute` acquires the connection through its
 * runtime driver, wraps the executor twice and awaits begin, commit and release one after the
 * other — about 6% of a revocation's CPU under the profiler (docs/performance.md "Revocation"),
 * for a connection that is free and a begin that is synchronous.
 *
 * Same transaction, same order: the BEGIN (or the join of the turn's batch) happens before the
 * work, the work's queries run on the transaction's own lease, and the COMMIT (the batch's shared
 * one) resolves before the caller goes on; a failure rolls back to the batch's savepoint and
 * replays the others (driver.ts), then the connection passes on. A query on the transaction after
 * it ended is refused, as Kysely refuses it. When the connection is held the caller takes
 * Kysely's path, which queues (driver.ts): nothing jumps the queue, since a release hands the
 * connection to the next waiter directly and the connection is free only when nobody waits.
 * Guarded by test/unit/sqlite-transaction-now.test.ts and the group-commit tests.
 */
import { type ConnectionProvider, type DatabaseConnection, type Kysely, Transaction } from 'kysely';
import { allowImmediateOnLease, type Lease, type QueuedSqliteDriver, queuedDialectOf } from './driver.js';

const ENDED = 'this transaction has ended: run the query on the database, or inside a new transaction';

/** Every query of the transaction on its own lease, and none once it has ended. */
class LeaseProvider implements ConnectionProvider {
  constructor(private readonly lease: Lease) {}

  provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    if (!this.lease.inTransaction) return Promise.reject(new Error(ENDED));
    return consumer(this.lease);
  }
}

/** Runs `work` in a transaction begun now, when `db` is SQLite and its connection is free; else undefined. */
export function transactionNow<DB, T>(
  db: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> | undefined {
  const dialect = queuedDialectOf(db);
  const driver = dialect?.queuedDriver();
  if (!dialect || !driver) return undefined;
  let lease: Lease | undefined;
  try {
    lease = driver.beginNow();
  } catch (error) {
    // A BEGIN that failed (the write lock not had within busy_timeout): a rejection, as Kysely's
    // path gives, never a throw.
    return Promise.reject(error);
  }
  if (!lease) return undefined;
  const trx = new Transaction<DB>({
    config: { dialect },
    dialect,
    driver,
    executor: db.getExecutor().withConnectionProvider(new LeaseProvider(lease)),
  });
  allowImmediateOnLease(trx, lease);
  return finish(driver, lease, trx, work);
}

async function finish<DB, T>(
  driver: QueuedSqliteDriver,
  lease: Lease,
  trx: Transaction<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await work(trx);
  } catch (error) {
    await driver.rollbackAndRelease(lease);
    throw error;
  }
  // Releases the connection and resolves once the batch's shared COMMIT has returned.
  await driver.commitTransaction(lease);
  return result;
}
