/** Rows kept while unchanged (src/storage/sqlite/read-cache.ts) and the change stamps behind them. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { prepared } from '../../src/storage/prepared.js';
import SQLite from '../../src/storage/sqlite/binding.js';
import { writeScope } from '../../src/storage/sqlite/change-stamps.js';
import { ReadCache } from '../../src/storage/sqlite/read-cache.js';
import { NOT_NOW, readNow } from '../../src/storage/sqlite/read-now.js';
import { holdTransaction } from '../helpers/hold.js';

describe('change stamps: which rows a write may change', () => {
  it('a plain INSERT changes none, an UPDATE or upsert its table, a DELETE, REPLACE or DDL every table', () => {
    assert.deepEqual(writeScope('insert into "audit_events" ("at") values (?)'), {
      kind: 'adds',
      table: 'audit_events',
    });
    assert.deepEqual(writeScope('update "access_tokens" set "revoked_at" = ? where "token_hash" = ?'), {
      kind: 'table',
      table: 'access_tokens',
    });
    assert.deepEqual(
      writeScope(
        'insert into "rate_limits" ("key") values (?) on conflict ("key") do update set "count" = 1',
      ),
      { kind: 'table', table: 'rate_limits' },
    );
    assert.deepEqual(writeScope('delete from "clients" where "id" = ?'), { kind: 'every', why: 'delete' });
    for (const replace of [
      'replace into "accounts" ("id") values (?)',
      'insert or replace into "accounts" ("id") values (?)',
    ]) {
      assert.deepEqual(writeScope(replace), { kind: 'every', why: 'replace' }, replace);
    }
    for (const ddl of [
      'drop table "accounts"',
      'create table "x" ("id" text)',
      'create unique index "i" on "x" ("id")',
    ]) {
      assert.deepEqual(writeScope(ddl), { kind: 'every', why: 'schema' }, ddl);
    }
  });

  it('says when it does not understand a write, instead of guessing', () => {
    for (const other of [
      'with "x" as (select 1) update "accounts" set "disabled" = 1',
      'update accounts set disabled = 1',
      'create trigger "t" after update on "accounts" begin select 1; end',
      'pragma user_version = 2',
    ]) {
      assert.deepEqual(writeScope(other), { kind: 'unknown' }, other);
    }
  });
});

// A scratch schema: the cache and the driver are under test, not the application's tables.
// biome-ignore lint/suspicious/noExplicitAny: scratch tables are not part of Database
type Db = Kysely<any>;

describe('read cache on SQLite', () => {
  let dir: string;
  let storage: Storage;
  let db: Db;
  /** Another process's connection. */
  let other: SQLite.Database;
  let reads = 0;
  const cache = new ReadCache<{ name: string; state: string }>(['things'], 100);
  const thing = prepared((db, name: string) =>
    (db as Db).selectFrom('things').select(['name', 'state']).where('name', '=', name),
  );
  /** The row read now (the cache's answer unwrapped); NOT_NOW as it is. */
  const lookUp = (name: string) => {
    const read = cache.read(db, name, () => {
      reads += 1;
      return thing.firstNow(db as never, name);
    });
    return read.now ? read.value : read;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schoolauth-read-cache-'));
    storage = await openStorage(`sqlite:${join(dir, 'cache.db')}`);
    db = storage.db as Db;
    await sql`create table owners (name text primary key)`.execute(db);
    await sql`create table things (name text primary key, state text not null, owner text references owners(name) on delete cascade)`.execute(
      db,
    );
    await sql`create table unrelated (name text primary key)`.execute(db);
    other = new SQLite(join(dir, 'cache.db'), { timeout: 1000 });
  });

  after(async () => {
    other.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await db.deleteFrom('things').execute();
    await db.deleteFrom('owners').execute();
    await db.insertInto('owners').values({ name: 'o' }).execute();
    await db.insertInto('things').values({ name: 'a', state: 'live', owner: 'o' }).execute();
    await nextTurn();
    reads = 0;
  });

  /** Reads `a` twice in a new turn: the second must come from the cache. */
  const cached = async () => {
    await nextTurn();
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'live' });
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'live' });
    assert.equal(reads, 1, 'the second lookup read again');
    reads = 0;
  };

  it('answers a kept row without reading while nothing has changed, across turns, and keeps no miss', async () => {
    await cached();
    await nextTurn();
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'live' });
    assert.equal(reads, 0);
    assert.equal(lookUp('absent'), undefined);
    assert.equal(lookUp('absent'), undefined);
    assert.equal(reads, 2, 'a row that was not found is read again');
    assert.ok(Object.isFrozen(lookUp('a')), 'a kept row can be changed in place');
  });

  it('keeps the row through plain inserts and changes to other tables', async () => {
    await cached();
    await db.insertInto('things').values({ name: 'b', state: 'live' }).execute();
    await db.insertInto('unrelated').values({ name: 'u' }).execute();
    await db.updateTable('unrelated').set({ name: 'v' }).execute();
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'live' });
    assert.equal(reads, 0);
  });

  it('reads again after an update of its table, in or outside a transaction', async () => {
    await cached();
    await db.updateTable('things').set({ state: 'revoked' }).where('name', '=', 'a').execute();
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'revoked' });
    await db.transaction().execute((trx) => trx.updateTable('things').set({ state: 'again' }).execute());
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'again' });
  });

  it('reads again after a delete anywhere, since it may cascade', async () => {
    await cached();
    await db.deleteFrom('owners').where('name', '=', 'o').execute();
    assert.equal(lookUp('a'), undefined, 'the cascade removed the row');
  });

  it('reads again after raw SQL', async () => {
    await cached();
    await sql`update things set state = 'raw'`.execute(db);
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'raw' });
  });

  it('reads again after a rollback: what a rolled-back transaction saw must not outlive it', async () => {
    await cached();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('unrelated').set({ name: 'w' }).execute();
        throw new Error('roll back');
      }),
    );
    await nextTurn();
    lookUp('a');
    assert.equal(reads, 1, 'a rollback kept the cache');
  });

  it('reads again after another connection’s commit, from the next turn on', async () => {
    await cached();
    other.prepare("update things set state = 'elsewhere' where name = 'a'").run();
    await nextTurn();
    assert.deepEqual(lookUp('a'), { name: 'a', state: 'elsewhere' });
    assert.equal(reads, 1);
  });

  it('answers NOT_NOW while a transaction holds the connection', async () => {
    await cached();
    const held = await holdTransaction(db, (trx) => trx.selectFrom('things').selectAll().execute());
    assert.equal(lookUp('a'), NOT_NOW);
    await held.release();
  });

  it('keeps nothing on PostgreSQL-like instances it cannot see the writes of', () => {
    // A Kysely instance that is not the SQLite driver's: no stamp, so never a cached answer.
    assert.equal(
      cache.read({}, 'a', () => readNow({ name: 'a', state: 'live' })),
      NOT_NOW,
    );
  });
});
