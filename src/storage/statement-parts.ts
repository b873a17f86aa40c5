/**
 * Pieces of the PostgreSQL statements that write several rows at once as data-modifying CTEs
 * (docs/performance.md "PostgreSQL"). Column names come from the row objects the code builds;
 * every value is a bound parameter.
 */
import { type RawBuilder, sql } from 'kysely';

type Row = Readonly<Record<string, string | number | null>>;

const columnsOf = (row: Row) => sql.join(Object.keys(row).map((column) => sql.ref(column)));
const valuesOf = (row: Row) => sql.join(Object.values(row));

/** `INSERT INTO table (…) VALUES (…)`: the row as given. */
export function insertRow(table: string, row: Row): RawBuilder<unknown> {
  return sql`insert into ${sql.table(table)} (${columnsOf(row)}) values (${valuesOf(row)})`;
}

/**
 * `INSERT INTO table (…) SELECT … FROM source`: the row, written once for each row the CTE
 * `source` returns (at most one where it is used), so not at all when `source` returns none.
 */
export function insertRowFor(table: string, row: Row, source: string): RawBuilder<unknown> {
  return sql`insert into ${sql.table(table)} (${columnsOf(row)}) select ${valuesOf(row)} from ${sql.table(source)}`;
}
