import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

interface TableShape {
  readonly name: string;
  readonly columns: readonly string[];
  /** Indexes created by the migrations (not the automatic ones of primary keys and uniques). */
  readonly indexes: readonly string[];
}

/** Every table after all migrations, but SQLite's own (`sqlite_*`). */
// biome-ignore lint/suspicious/noExplicitAny: reads the catalogue, not the typed schema
async function tablesOf(db: Kysely<any>): Promise<TableShape[]> {
  const tables = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'
    order by name`.execute(db);
  return Promise.all(
    tables.rows.map(async ({ name }) => {
      const columns = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(db);
      const indexes = await sql<{ name: string }>`
        select name from sqlite_master where type = 'index' and tbl_name = ${name} and sql is not null`.execute(
        db,
      );
      return { name, columns: columns.rows.map((c) => c.name), indexes: indexes.rows.map((i) => i.name) };
    }),
  );
}

/** The text under each `### \`table\`` heading of docs/storage.md, up to the next heading. */
function sections(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of markdown.split(/^(?=#{1,3} )/m)) {
    const heading = /^### `([a-z_0-9]+)`\n/.exec(part);
    if (heading) found.set(heading[1]!, part.slice(heading[0].length));
  }
  return found;
}

/** What docs/storage.md leaves out: tables, columns and indexes it does not name, and tables that are gone. */
function undocumented(tables: readonly TableShape[], markdown: string): string[] {
  const described = sections(markdown);
  const problems = tables.flatMap(({ name, columns, indexes }) => {
    const text = described.get(name);
    if (text === undefined) return [`table ${name} has no "### \`${name}\`" section`];
    return [...columns, ...indexes]
      .filter((item) => !text.includes(`\`${item}\``))
      .map((item) => `${name}.${item} is not named in its section`);
  });
  const existing = new Set(tables.map((t) => t.name));
  return [
    ...problems,
    ...[...described.keys()]
      .filter((name) => !existing.has(name))
      .map((name) => `${name} is described but no migration creates it`),
  ];
}

describe('docs/storage.md describes the schema the migrations build', () => {
  let storage: Storage;
  const markdown = readFileSync(new URL('../../docs/storage.md', import.meta.url), 'utf8');
  before(async () => {
    storage = await openStorage('sqlite::memory:');
    await migrateToLatest(storage.db);
  });
  after(() => storage.close());

  it('names every table after all migrations, each column and index under the table’s heading', async () => {
    const tables = await tablesOf(storage.db);
    assert.ok(tables.length >= 30, `only ${tables.length} tables were read`);
    assert.deepEqual(undocumented(tables, markdown), []);
  });

  it('fails for a table, a column or an index it does not describe', async () => {
    await sql`create table attendance (id text primary key, school_id text not null)`.execute(storage.db);
    await sql`alter table sessions add column user_agent text`.execute(storage.db);
    await sql`create index grants_revoked on grants (revoked_at)`.execute(storage.db);
    const problems = undocumented(await tablesOf(storage.db), markdown);
    assert.deepEqual(problems, [
      'table attendance has no "### `attendance`" section',
      'grants.grants_revoked is not named in its section',
      'sessions.user_agent is not named in its section',
    ]);
    const withoutGrants = markdown.replace('### `grants`', '### grants');
    assert.ok(
      undocumented(await tablesOf(storage.db), withoutGrants).includes(
        'table grants has no "### `grants`" section',
      ),
    );
  });

  it('fails for a section whose table no migration creates', async () => {
    const extra = `${markdown}\n### \`enrolments\`\n\nA table that was dropped.\n`;
    assert.ok(
      undocumented(await tablesOf(storage.db), extra).includes(
        'enrolments is described but no migration creates it',
      ),
    );
  });
});
