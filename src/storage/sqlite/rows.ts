/**
 * Row objects for SQLite results, built by a function compiled once per statement. better-sqlite3
 * builds each row object itself, one property at a time through V8's API, and that was 8% of the
 * CPU of a protected GET (docs/performance.md, 13). Asked for arrays (`raw` mode), it builds rows
 * at half that cost; an object literal with the statement's column names, compiled once, then
 * gives every row of that statement the same shape in one allocation.
 */

export type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * The builder for rows with these column names. A name that repeats keeps its last value, as
 * better-sqlite3's own objects do; `__proto__` becomes an own property (a computed key), where a
 * plain literal key would set the prototype.
 */
export function rowBuilder(columns: readonly string[]): RowBuilder {
  const properties = columns.map((name, index) => {
    const key = JSON.stringify(name);
    return `${name === '__proto__' ? `[${key}]` : key}: values[${index}]`;
  });
  return new Function('values', `return { ${properties.join(', ')} };`) as RowBuilder;
}
