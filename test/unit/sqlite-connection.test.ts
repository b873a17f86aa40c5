/**
 * The SQLite concurrency model (src/storage/sqlite/connection.ts, driver.ts): one mutex per
 * connection, held by every store operation (one synchronous transaction) and by every Kysely
 * query or transaction from acquire to release.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type CompiledQuery, Kysely, sql } from 'kysely';
import SQLite from '../../src/storage/sqlite/binding.js';
import { SqliteConnection, type SyncSql } from '../../src/storage/sqlite/connection.js';
import { GuardedSqliteDialect } from '../../src/storage/sqlite/driver.js';
import { holdTransaction } from '../helpers/hold.js';

// biome-ignore lint/suspicious/noExplicitAny: a scratch table outside the application schema
type Db = Kysely<any>;

const insert = (name: string): CompiledQuery => sql`insert into items (name) values (${name})`.compile(db);
const countAll = (s: SyncSql) =>
  s.execute<{ n: number }>(sql`select count(*) as n from items`.compile(db)).rows[0]!.n;

let dir: string;
let connection: SqliteConnection;
let db: Db;
let observer: SQLite.Database;
/** Rows of `items` with this name committed (read on a second connection). */
const committed = (name: string) =>
  (observer.prepare('select count(*) as n from items where name = ?').get(name) as { n: number }).n;

describe('SQLite: one guarded connection', () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schoolauth-connection-'));
    const database = new SQLite(join(dir, 'test.db'));
    database.pragma('journal_mode = WAL');
    connection = new SqliteConnection(database);
    db = new Kysely({ dialect: new GuardedSqliteDialect(connection) });
    connection.db = db;
    await sql`create table items (name text primary key)`.execute(db);
    observer = new SQLite(join(dir, 'test.db'), { readonly: true });
  });
  after(async () => {
    observer.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await db.deleteFrom('items').execute();
  });

  it('answers an operation’s value at once, not as a promise, while the connection is free, committed', () => {
    const value = connection.now((s) => {
      s.execute(insert('now'));
      return countAll(s);
    });
    assert.equal(value, 1);
    assert.equal(committed('now'), 1);
  });

  it('never runs an operation inside another request’s open Kysely transaction: it waits, then runs', async () => {
    const held = await holdTransaction(db, (trx) =>
      trx.insertInto('items').values({ name: 'first' }).execute(),
    );
    let ran = false;
    const waiting = connection.now((s) => {
      ran = true;
      return countAll(s);
    });
    assert.ok(waiting instanceof Promise, 'answered now while a transaction held the connection');
    await nextTurn();
    assert.equal(ran, false, 'the operation ran inside the open transaction');
    await held.release();
    assert.equal(await waiting, 1, 'it ran after the transaction committed, and saw its row');
  });

  it('serializes operations and Kysely transactions in the order they came', async () => {
    const order: string[] = [];
    const held = await holdTransaction(db, async () => order.push('held'));
    const all = [
      connection.later(() => order.push('op 1')),
      db.transaction().execute(async (trx) => {
        order.push('trx begins');
        await nextTurn();
        await trx.insertInto('items').values({ name: 'trx' }).execute();
        order.push('trx ends');
      }),
      connection.later(() => order.push('op 2')),
    ];
    await nextTurn();
    assert.deepEqual(order, ['held']);
    await held.release();
    await Promise.all(all);
    assert.deepEqual(order, ['held', 'op 1', 'trx begins', 'trx ends', 'op 2']);
  });

  it('rolls back a failing operation alone; the others commit', async () => {
    const held = await holdTransaction(db, async () => undefined);
    const results = await Promise.allSettled([
      connection.later((s) => s.execute(insert('a'))),
      connection.later((s) => {
        s.execute(insert('failed'));
        throw new Error('refused');
      }),
      connection.later((s) => s.execute(insert('b'))),
      held.release(),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual([committed('a'), committed('failed'), committed('b')], [1, 0, 1]);
  });

  it('answers a failure of an operation on a free connection as a rejection, never a throw, and frees the connection', async () => {
    const failed = connection.now((s) => {
      s.execute(insert('dup'));
      s.execute(insert('dup'));
    });
    assert.ok(failed instanceof Promise);
    await assert.rejects(failed, /UNIQUE/);
    assert.equal(committed('dup'), 0);
    assert.equal(connection.free, true);
    assert.equal(
      connection.now((s) => countAll(s)),
      0,
    );
  });

  it('refuses an operation that awaits: it must be one synchronous transaction', async () => {
    await assert.rejects(
      connection.later(async (s) => s.execute(insert('async'))),
      /cannot return a promise/,
    );
    assert.equal(committed('async'), 0);
  });

  it('answers a read while another process holds the write lock: a read takes none (BEGIN DEFERRED)', async () => {
    const writer = new SQLite(join(dir, 'test.db'));
    try {
      writer.exec('BEGIN IMMEDIATE');
      writer.prepare('insert into items (name) values (?)').run('uncommitted');
      assert.equal(
        connection.read((s) => countAll(s)),
        0,
      );
      // A write waits for the lock (here for no time: refused at once).
      connection.database.pragma('busy_timeout = 0');
      await assert.rejects(Promise.resolve(connection.now((s) => countAll(s))), /locked|busy/i);
      writer.exec('ROLLBACK');
    } finally {
      connection.database.pragma('busy_timeout = 5000');
      writer.close();
    }
  });

  it('rolls back a failing Kysely transaction alone, and the next operation runs', async () => {
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'gone' }).execute();
        throw new Error('refused');
      }),
      /refused/,
    );
    assert.equal(committed('gone'), 0);
    assert.equal(
      connection.now((s) => countAll(s)),
      0,
    );
  });
});
