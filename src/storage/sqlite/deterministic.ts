/**
 * Group commit replays writes (driver.ts): after a failed transaction the batch rolls back to its
 * savepoint and runs its other transactions' write statements again, with the same parameters, on
 * the same state. That is the same change only if every write is deterministic: no random values,
 * no clock, nothing read from the connection's own history. The driver refuses, when it prepares
 * a write, the SQL functions that break this (SQLite's "non-deterministic" built-ins,
 * https://sqlite.org/deterministic.html); the app passes such values as bound parameters.
 */

// Matched after quoted identifiers and string literals are blanked out.
const FUNCTIONS =
  /\b(random|randomblob|changes|total_changes|last_insert_rowid|sqlite_offset)\s*\(|\b(current_timestamp|current_date|current_time)\b|\b(date|time|datetime|julianday|unixepoch)\s*\(\s*\)|\bstrftime\s*\(\s*''\s*\)/i;
/** A date function's 'now' argument, inside a string literal. */
const NOW = /'now'/i;

/** What makes `sql` nondeterministic (e.g. `random(`, `'now'`); undefined when nothing does. */
export function nondeterminism(sql: string): string | undefined {
  const now = NOW.exec(sql);
  if (now) return now[0];
  const blanked = sql.replace(/"(?:[^"]|"")*"/g, '""').replace(/'(?:[^']|'')*'/g, "''");
  const found = FUNCTIONS.exec(blanked);
  return found ? found[0].replace(/\s+/g, '') : undefined;
}

/** Throws when a write's SQL is nondeterministic: group commit could not replay it. */
export function assertDeterministicWrite(sql: string): void {
  const found = nondeterminism(sql);
  if (found === undefined) return;
  throw new Error(
    `SQLite write not deterministic (${found}): group commit may run a write again after another transaction of its batch fails, so a write must pass random values and times as bound parameters (src/storage/sqlite/README.md): ${sql}`,
  );
}
