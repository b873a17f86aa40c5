/**
 * Change stamps of one SQLite database: a counter that moves on every statement that may change
 * or remove existing rows, remembered per table, so a result read at one stamp can be known to be
 * still what a new read would answer (read-cache.ts). Conservative by construction: what is not
 * known to touch one table counts as touching every table.
 *
 * - A plain INSERT adds rows and changes none: it moves only its table's insert stamp. A cached row
 *   that was found cannot change by it; a cached answer built from several rows of a table (an
 *   account with its memberships) can, and asks for the insert stamps too.
 * - An UPDATE, or an INSERT … ON CONFLICT (an upsert), changes rows of its own table only: the
 *   schema has no ON UPDATE actions and no triggers (test/unit/sqlite-invariants.test.ts).
 * - A DELETE may cascade through foreign keys (the schema has ON DELETE CASCADE and SET NULL),
 *   a REPLACE deletes, and DDL changes the schema: every table.
 * - Anything else is not understood (raw SQL, a CTE, a form Kysely does not write): every table
 *   at run time, and test/unit/sqlite-invariants.test.ts fails when the app's SQL is not understood.
 * - A rollback, and a commit by another connection (another process: the CLI, a second server),
 *   count as every table too.
 */

export type WriteScope =
  /** Adds rows to `table` and changes none. */
  | { readonly kind: 'adds'; readonly table: string }
  /** Changes rows of `table` only. */
  | { readonly kind: 'table'; readonly table: string }
  /** Understood, and may change rows of any table. */
  | { readonly kind: 'every'; readonly why: 'delete' | 'replace' | 'schema' }
  /** Not understood: counted as every table. */
  | { readonly kind: 'unknown' };

// Kysely's SQLite compiler writes these forms; values are bound parameters, never in the text.
const UPDATE = /^update "([^"]+)" /;
const INSERT = /^insert into "([^"]+)" /;
const DELETE = /^delete from "[^"]+"/;
const REPLACE = /^(replace|insert or replace) into "[^"]+"/;
const SCHEMA = /^(create|drop|alter) (table|(unique )?index|view) /;

/** Which existing rows a write statement may change (see above). */
export function writeScope(sql: string): WriteScope {
  const update = UPDATE.exec(sql);
  if (update) return { kind: 'table', table: update[1]! };
  const insert = INSERT.exec(sql);
  if (insert) return { kind: sql.includes(' on conflict ') ? 'table' : 'adds', table: insert[1]! };
  if (DELETE.test(sql)) return { kind: 'every', why: 'delete' };
  if (REPLACE.test(sql)) return { kind: 'every', why: 'replace' };
  if (SCHEMA.test(sql)) return { kind: 'every', why: 'schema' };
  return { kind: 'unknown' };
}

export class ChangeStamps {
  private current = 0;
  /** The stamp of the last change that may have touched every table. */
  private everything = 0;
  private readonly tables = new Map<string, number>();
  /** The stamp of the last plain INSERT, per table. */
  private readonly inserts = new Map<string, number>();

  /** The stamp now: a read made now is current until a change touches its tables. */
  get now(): number {
    return this.current;
  }

  /** A write statement is about to run. */
  write(sql: string): void {
    const scope = writeScope(sql);
    if (scope.kind === 'adds') this.inserts.set(scope.table, ++this.current);
    else if (scope.kind === 'table') this.tables.set(scope.table, ++this.current);
    else this.everything = ++this.current;
  }

  /** A rollback, or a commit by another connection: nothing read before is known any more. */
  all(): void {
    this.everything = ++this.current;
  }

  /**
   * Whether a change that may touch any of `tables` came after `stamp`; with `inserts`, a plain
   * INSERT into one of them counts too.
   */
  changedSince(stamp: number, tables: readonly string[], inserts: boolean): boolean {
    if (this.everything > stamp) return true;
    for (const table of tables) {
      if ((this.tables.get(table) ?? 0) > stamp) return true;
      if (inserts && (this.inserts.get(table) ?? 0) > stamp) return true;
    }
    return false;
  }
}
