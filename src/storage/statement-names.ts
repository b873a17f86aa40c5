/**
 * Names for the fixed statements on PostgreSQL. A statement sent with a name is parsed and planned
 * once per connection and then only bound and executed (the extended query protocol's named
 * prepared statement); sent unnamed, as node-postgres sends every other statement, PostgreSQL
 * parses and plans it on every call: about 61% of a backend's CPU on the protected GET
 * (docs/performance.md, "Where a PostgreSQL request's CPU goes").
 *
 * Only statements whose text is one of a few are named: prepared.ts's templates, and the writes
 * of data-modifying CTEs whose text changes only with which optional parts a call has
 * (fixed-statements.ts). A Kysely query built per call (an IN list of any length) would leave a
 * new prepared statement on every connection for every shape; MAX_NAMES bounds what a mistake of
 * that kind could leave there.
 */

/**
 * At most this many texts are named in a process (and so prepared on each connection); past it
 * a text is sent unnamed.
 */
export const MAX_NAMES = 100;

const names = new Map<string, string>();

/**
 * Gives `sql` a name for the life of the process; the same text keeps its name. Answers whether
 * `sql` is named (false once MAX_NAMES texts are).
 */
export function nameStatement(sql: string): boolean {
  if (names.has(sql)) return true;
  if (names.size >= MAX_NAMES) return false;
  names.set(sql, `schoolauth_${names.size + 1}`);
  return true;
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
 * more (fixed-statements.ts, transaction.ts).
 */
export class StaleStatement extends Error {
  constructor(override readonly cause: unknown) {
    super('a named statement was prepared against a table that has changed since', { cause });
  }
}
