/** The grown bench's per-statement profile (bench/statement-profile.ts) and its flag. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGrowth } from '../growth-options.js';
import { type StatementTime, statementProfileTable } from '../statement-profile.js';

const times = (
  entries: Record<string, [number, number, number, number, number?, number?]>,
): Map<string, StatementTime> =>
  new Map(
    Object.entries(entries).map(
      ([query, [calls, totalMs, sharedHit, sharedRead, walBytes = 0, walFpi = 0]]) => [
        query,
        { calls, totalMs, sharedHit, sharedRead, walBytes, walFpi },
      ],
    ),
  );

describe('per-statement profile of the grown database against the empty one', () => {
  const empty = times({
    'insert into "access_tokens" values ($1)': [1000, 50, 4000, 0, 512_000, 100],
    'select * from "grants" where "id" = $1': [1000, 20, 3000, 0],
    BEGIN: [1000, 1, 0, 0],
  });
  const grown = times({
    'insert into "access_tokens" values ($1)': [900, 450, 3600, 1800, 7_372_800, 900],
    'select * from "grants" where "id" = $1': [900, 18, 2700, 9],
    'select "x" from "only_grown"': [10, 1, 10, 0],
    BEGIN: [900, 1, 0, 0],
  });
  const table = statementProfileTable('code c=16', empty, grown);
  const rows = table.split('\n').slice(2);

  it('lists the grown database costliest statement first, transaction control left out', () => {
    assert.equal(rows.length, 3);
    assert.match(rows[0]!, /access_tokens/);
    assert.match(rows[1]!, /grants/);
    assert.ok(!table.includes('BEGIN'));
  });

  it('gives mean milliseconds, buffers hit and read, and WAL kB and full-page images per call on each side', () => {
    assert.equal(
      rows[0],
      '| `insert into "access_tokens" values ($1)` | 1000 / 900 | 0.050 | 0.500 | 4.0 / 0.00 | 4.0 / 2.00 | ' +
        '0.50 / 0.10 | 8.00 / 1.00 |',
    );
  });

  it('shows a statement only one database ran with a dash on the other side', () => {
    assert.match(
      rows[2]!,
      /only_grown.*\| 0 \/ 10 \| – \| 0\.100 \| – \/ – \| 1\.0 \/ 0\.00 \| – \/ – \| 0\.00 \/ 0\.00 \|/,
    );
  });

  it('the flag is refused on SQLite, which has no pg_stat_statements', () => {
    assert.throws(
      () => parseGrowth({ grown: true, 'statement-profile': true }),
      /--statement-profile reads pg_stat_statements: use it with --grown-database postgres/,
    );
    assert.equal(
      parseGrowth({ grown: true, 'grown-database': 'postgres', 'statement-profile': true })?.statementProfile,
      true,
    );
  });
});
