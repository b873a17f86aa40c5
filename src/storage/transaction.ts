/**
 * `db.transaction().execute(work)`, with the transaction's prepared queries run at once on SQLite
 * (sqlite/driver.ts): inside a transaction every query otherwise goes through Kysely's executor
 * and connection provider, a chain of promises per query, while the connection is this
 * transaction's anyway. On PostgreSQL it is Kysely's transaction, unchanged.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';
import { allowImmediateInTransaction } from './sqlite/driver.js';

export function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute((trx) => {
    allowImmediateInTransaction(db, trx);
    return work(trx);
  });
}
