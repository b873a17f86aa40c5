import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { preparedInsert } from '../../src/storage/prepared.js';
import type { Database } from '../../src/storage/schema.js';

describe('prepared inserts', () => {
  let storage: Storage;
  let db: Kysely<Database>;
  before(async () => {
    storage = await openStorage('sqlite::memory:');
    db = storage.db;
    await sql`create table scratch (a text, b text default 'default-b', c text default 'default-c')`.execute(
      db,
    );
  });
  after(() => storage.close());

  it('puts every value in its own column when rows of one call site change their columns', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: a scratch table outside the application schema
    const insert = preparedInsert('scratch' as any) as (db: Kysely<Database>, row: object) => Promise<void>;
    await insert(db, { a: '1', b: '1b' });
    await insert(db, { a: '2', b: '2b' });
    await insert(db, { a: '3' });
    await insert(db, { b: '4b', a: '4' });
    await insert(db, { a: '5', c: '5c' });
    await insert(db, { a: '6', b: '6b' });
    const rows = await sql<{
      a: string;
      b: string;
      c: string;
    }>`select a, b, c from scratch order by a`.execute(db);
    assert.deepEqual(rows.rows, [
      { a: '1', b: '1b', c: 'default-c' },
      { a: '2', b: '2b', c: 'default-c' },
      { a: '3', b: 'default-b', c: 'default-c' },
      { a: '4', b: '4b', c: 'default-c' },
      { a: '5', b: 'default-b', c: '5c' },
      { a: '6', b: '6b', c: 'default-c' },
    ]);
  });
});
