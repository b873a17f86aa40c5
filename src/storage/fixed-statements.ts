/**
 * Running the statements that statement-names.ts names: prepared.ts's templates, and the
 * one-statement writes of data-modifying CTEs (executeFixed).
 */
import type { CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import { dialectOf } from './dialect.js';
import type { Database } from './schema.js';
import { nameStatement, StaleStatement } from './statement-names.js';

/**
 * Runs `query`. A named one that met a StaleStatement outside a transaction had done nothing, so
 * it runs once more, on a connection that prepares it against the schema as it is now; in a
 * transaction, the transaction as a whole is tried again (transaction.ts).
 */
export function executeNamed<R>(
  db: Kysely<Database>,
  query: CompiledQuery<R>,
  named: boolean,
): Promise<QueryResult<R>> {
  const result = db.executeQuery<R>(query);
  return !named || db.isTransaction
    ? result
    : result.catch((error: unknown) =>
        error instanceof StaleStatement ? db.executeQuery<R>(query) : Promise.reject(error),
      );
}

/**
 * Runs a statement of data-modifying CTEs (issuance-statements, revocation and registration
 * repositories), named on PostgreSQL: its text is one of a few, fixed by which optional parts
 * the call has, and its values are all bound parameters. Parsing and planning such a statement
 * is a good part of its backend's CPU (docs/performance.md "Named statements: the writes").
 */
export function executeFixed<R>(db: Kysely<Database>, statement: RawBuilder<R>): Promise<QueryResult<R>> {
  const query = statement.compile(db);
  return executeNamed(db, query, dialectOf(db) === 'postgres' && nameStatement(query.sql));
}
