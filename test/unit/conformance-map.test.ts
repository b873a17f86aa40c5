import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type ConformanceRow, parseConformanceMap } from '../helpers/conformance-map.js';
import { declaresTest, readTestTitles, type TestTitles, testTitles } from '../helpers/test-titles.js';

const root = new URL('../../', import.meta.url);

/** What is wrong with one row's citations: nothing when each cited name is a test of its file. */
function rowProblems(row: ConformanceRow, titlesOf: (file: string) => TestTitles | undefined): string[] {
  const where = `test/conformance.md:${row.line} (${row.requirement.slice(0, 60)})`;
  if (row.citations.length === 0) return [`${where}: cites no test`];
  return row.citations.flatMap(({ file, names }) => {
    const titles = titlesOf(file);
    if (!titles) return [`${where}: ${file} does not exist`];
    if (names.length === 0) return [`${where}: cites ${file} without naming a test (\`file\` › "name")`];
    return names
      .filter((name) => !declaresTest(titles, name))
      .map((name) => `${where}: ${file} has no test "${name}"`);
  });
}

describe('test/conformance.md names tests that exist', () => {
  it('every row cites tests by name, and each name is a test or describe title of an existing file', () => {
    const rows = parseConformanceMap(readFileSync(new URL('test/conformance.md', root), 'utf8'));
    assert.ok(rows.length >= 100, `only ${rows.length} rows were read: the table format changed`);
    const cache = new Map<string, TestTitles | undefined>();
    const titlesOf = (file: string) => {
      if (!cache.has(file)) {
        const path = new URL(file, root);
        cache.set(file, existsSync(path) ? readTestTitles(path.pathname) : undefined);
      }
      return cache.get(file);
    };
    assert.deepEqual(
      rows.flatMap((row) => rowProblems(row, titlesOf)),
      [],
    );
  });
});

describe('conformance map checker', () => {
  const sample = [
    '| MUST | Proof |',
    '| --- | --- |',
    '| §1: one | `test/a.test.ts` › "x \\"y\\"", "z" (a note); `test/b.test.ts` › "w" |',
    '| §2: two | `test/c.test.ts` (no names) |',
    '| §3: three | see above |',
    '| §4: four | `x.test.ts` › "x" |',
  ].join('\n');

  it('reads each row’s files and quoted names, unescaping \\", skipping headers and separators', () => {
    assert.deepEqual(parseConformanceMap(sample), [
      {
        line: 3,
        requirement: '§1: one',
        citations: [
          { file: 'test/a.test.ts', names: ['x "y"', 'z'] },
          { file: 'test/b.test.ts', names: ['w'] },
        ],
      },
      { line: 4, requirement: '§2: two', citations: [{ file: 'test/c.test.ts', names: [] }] },
      { line: 5, requirement: '§3: three', citations: [] },
      { line: 6, requirement: '§4: four', citations: [{ file: 'x.test.ts', names: ['x'] }] },
    ]);
  });

  it('names the row for a missing file or path, a file without names, no citation and a renamed test', () => {
    const titles = testTitles("it('x \"y\"', () => {}); it('z', () => {}); describe('w', () => {});");
    const problems = parseConformanceMap(sample).flatMap((row) =>
      rowProblems(row, (file) =>
        file.startsWith('test/') && file !== 'test/b.test.ts' ? titles : undefined,
      ),
    );
    assert.deepEqual(problems, [
      'test/conformance.md:3 (§1: one): test/b.test.ts does not exist',
      'test/conformance.md:4 (§2: two): cites test/c.test.ts without naming a test (`file` › "name")',
      'test/conformance.md:5 (§3: three): cites no test',
      'test/conformance.md:6 (§4: four): x.test.ts does not exist',
    ]);
    const renamed = testTitles("it('x \"y\"', () => {}); it('z2', () => {});");
    assert.deepEqual(
      rowProblems(parseConformanceMap(sample)[0]!, () => renamed),
      [
        'test/conformance.md:3 (§1: one): test/a.test.ts has no test "z"',
        'test/conformance.md:3 (§1: one): test/b.test.ts has no test "w"',
      ],
    );
  });

  it('accepts exact it, test and describe titles, not prefixes or regex .test calls', () => {
    const titles = testTitles(
      "describe('a unit', () => { it.skip('one test', () => {}); test('two', () => {}); /x/.test('three'); });",
    );
    for (const name of ['a unit', 'one test', 'two']) assert.ok(declaresTest(titles, name), name);
    for (const name of ['one', 'one test ', 'three', 'a unit…']) assert.ok(!declaresTest(titles, name), name);
  });

  it('accepts a table-driven title only when every substitution is a literal of the file', () => {
    const titles = testTitles(`
      const rows = [['missing code', 400, 'invalid_request'], [computed(), 401, 'invalid_client']];
      for (const [name, status, error] of rows) it(\`\${name} → \${status} \${error}\`, () => {});
      for (const uri of ['http://a/', 'b']) it(\`refuses \${JSON.stringify(uri)}\`, () => {});
      for (const title of ['a title from a table']) it(title, () => {});
    `);
    for (const name of [
      'missing code → 400 invalid_request',
      'refuses "http://a/"',
      'refuses "b"',
      'a title from a table',
    ]) {
      assert.ok(declaresTest(titles, name), name);
    }
    for (const name of [
      'computed → 401 invalid_client',
      'missing code → 500 invalid_request',
      'refuses "http://a"',
      'refuses "c"',
      'another title',
    ]) {
      assert.ok(!declaresTest(titles, name), name);
    }
  });
});
