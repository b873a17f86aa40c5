/**
 * Names for the fixed statements of prepared.ts on PostgreSQL. A statement sent with a name is
 * parsed and planned once per connection and then only bound and executed (the extended query
 * protocol's named prepared statement); sent unnamed, as node-postgres sends every other
 * statement, PostgreSQL parses and plans it on every call: about 61% of a backend's CPU on the
 * protected GET (docs/performance.md, "Where a PostgreSQL request's CPU goes").
 *
 * Only statements whose text never changes are named: a Kysely query built per call (an IN list
 * of any length) would leave a new prepared statement on every connection for every shape.
 */
const names = new Map<string, string>();

/** Gives `sql` a name for the life of the process; the same text keeps its name. */
export function nameStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `schoolauth_${names.size + 1}`);
}

/** The name given to `sql`, or undefined: a statement sent unnamed. */
export function statementName(sql: string): string | undefined {
  return names.get(sql);
}

/**
 * A named statement that PostgreSQL would no longer run on its connection: "cached plan must not
 * change result type" (SQLSTATE 0A000) after another connection changed a table it reads (a
 * column added by another instance's migration, during a rolling upgrade; `SELECT *` then returns
 * one more column). Nothing was executed. The connection is dropped, with every connection that
 * prepared its statements before (pg-pool.ts), and the statement or its transaction is tried once
 * more (prepared.ts, transaction.ts).
 */
export class StaleStatement extends Error {
  constructor(override readonly cause: unknown) {
    super('a named statement was prepared against a table that has changed since', { cause });
  }
}
