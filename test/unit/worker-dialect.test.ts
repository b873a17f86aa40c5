import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { bootstrap } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/context.js';
import { openStorage, type Storage } from '../../src/storage/connect.js';

// A scratch table outside the application schema: the connections are what is under test.
// biome-ignore lint/suspicious/noExplicitAny: the scratch table is not part of Database
type Db = Kysely<any>;

/** A statement that takes a while (hundreds of ms): counts through a recursive CTE. */
const slowCount = (db: Db, upTo: number) =>
  sql<{
    n: number;
  }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${upTo}) select count(*) as n from c`.execute(
    db,
  );

/** A write that holds the write lock a while: inserts `rows` rows in one statement. */
const slowInsert = (db: Db, tag: string, rows: number) =>
  sql`insert into bulk (tag, n) with recursive c(x) as (select 1 union all select x + 1 from c where x < ${rows}) select ${tag}, x from c`.execute(
    db,
  );

describe('SQLite statements on a worker thread (the server prune’s connection)', () => {
  let dir: string;
  let storage: Storage;
  let db: Db;
  let offLoop: Db;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schoolauth-worker-'));
    storage = await openStorage(`sqlite:${join(dir, 'worker.db')}`, {
      checkpointInBackground: true,
      offLoopWorker: true,
    });
    db = storage.db as Db;
    offLoop = storage.offLoopDb as Db;
    await sql`create table items (name text primary key, parent text references items(name) on delete cascade)`.execute(
      db,
    );
    await sql`create table bulk (tag text not null, n integer not null)`.execute(db);
  });

  after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await db.deleteFrom('items').execute();
    await db.deleteFrom('bulk').execute();
  });

  it('is a connection of its own on a server’s file when asked; the CLI, an in-memory database and PRUNE_THREAD=server (the default) use the server connection', async () => {
    assert.notEqual(storage.offLoopDb, storage.db);
    const cli = await openStorage(`sqlite:${join(dir, 'cli.db')}`, { offLoopWorker: true });
    const memory = await openStorage('sqlite::memory:', {
      checkpointInBackground: true,
      offLoopWorker: true,
    });
    const server = await openStorage(`sqlite:${join(dir, 'server.db')}`, { checkpointInBackground: true });
    try {
      assert.equal(cli.offLoopDb, cli.maintenanceDb);
      assert.equal(memory.offLoopDb, memory.maintenanceDb);
      assert.equal(server.offLoopDb, server.maintenanceDb);
    } finally {
      await cli.close();
      await memory.close();
      await server.close();
    }
  });

  it('the server takes the worker with PRUNE_THREAD=worker, and its own connection by default', async () => {
    for (const [setting, own] of [
      [undefined, false],
      ['worker', true],
    ] as const) {
      const env: Record<string, string> = {
        DATABASE_URL: `sqlite:${join(dir, `bootstrap-${setting ?? 'default'}.db`)}`,
        DATA_DIR: dir,
        LOG_LEVEL: 'silent',
        SEED_DEMO: 'off',
        ...(setting ? { PRUNE_THREAD: setting } : {}),
      };
      const ctx = await bootstrap(loadConfig(env), systemClock, { server: true });
      try {
        assert.equal(ctx.storage.offLoopDb !== ctx.storage.db, own, `PRUNE_THREAD=${setting ?? '(unset)'}`);
      } finally {
        await ctx.storage.close();
      }
    }
  });

  it('reads and writes as Kysely expects: rows, affected rows, RETURNING, foreign keys with their cascade', async () => {
    await db
      .insertInto('items')
      .values([{ name: 'a' }, { name: 'b', parent: 'a' }])
      .execute();
    assert.deepEqual(await offLoop.selectFrom('items').select('name').orderBy('name').execute(), [
      { name: 'a' },
      { name: 'b' },
    ]);
    const inserted = await offLoop.insertInto('items').values({ name: 'c', parent: 'a' }).executeTakeFirst();
    assert.equal(inserted.numInsertedOrUpdatedRows, 1n);
    const deleted = await offLoop.deleteFrom('items').where('name', '=', 'a').returning('name').execute();
    assert.deepEqual(deleted, [{ name: 'a' }]);
    // foreign_keys is per connection: on here too, so the children went with their parent.
    assert.deepEqual(await db.selectFrom('items').select('name').execute(), []);
  });

  it('answers SQLite’s own error, with its code, and goes on serving', async () => {
    await db.insertInto('items').values({ name: 'x' }).execute();
    await assert.rejects(
      offLoop.insertInto('items').values({ name: 'x' }).execute(),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'SQLITE_CONSTRAINT_PRIMARYKEY');
        assert.match(error.message, /UNIQUE constraint failed: items\.name/);
        return true;
      },
    );
    await assert.rejects(offLoop.insertInto('items').values({ name: 'y', parent: 'nobody' }).execute(), {
      code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
    });
    assert.deepEqual(await offLoop.selectFrom('items').select('name').execute(), [{ name: 'x' }]);
  });

  it('refuses a transaction, saying why', async () => {
    await assert.rejects(
      offLoop.transaction().execute(async (trx) => trx.selectFrom('items').selectAll().execute()),
      /each statement is its own transaction/,
    );
  });

  it('lets the event loop run while a statement runs, where the server connection holds it', async () => {
    /** How often a 1 ms timer fired while `statement` ran. */
    const timerTurnsDuring = async (statement: () => Promise<unknown>) => {
      let turns = 0;
      const timer = setInterval(() => turns++, 1);
      try {
        await statement();
      } finally {
        clearInterval(timer);
      }
      return turns;
    };
    const offLoopTurns = await timerTurnsDuring(() => slowCount(offLoop, 3_000_000));
    const serverTurns = await timerTurnsDuring(() => slowCount(db, 3_000_000));
    assert.ok(offLoopTurns > 10, `the timer fired ${offLoopTurns} times during the worker's statement`);
    assert.ok(
      serverTurns <= 2,
      `the timer fired ${serverTurns} times during the server connection's statement`,
    );
  });

  it('a server transaction that reads, then writes, succeeds though the worker writes in between: it waits for the write lock, never fails on a stale snapshot', async () => {
    await db.insertInto('items').values({ name: 'parent' }).execute();
    // The worker is up before the race below (its first statement starts it).
    await offLoop.selectFrom('items').selectAll().execute();
    let workerWrite: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      const seen = await trx.selectFrom('items').select('name').where('name', '=', 'parent').execute();
      assert.equal(seen.length, 1);
      workerWrite = offLoop.insertInto('items').values({ name: 'from the worker' }).execute();
      // Long enough for the worker's insert to commit, had it the lock to.
      await Promise.race([workerWrite, sleep(300)]);
      await trx.insertInto('items').values({ name: 'child', parent: 'parent' }).execute();
    });
    await workerWrite;
    assert.deepEqual(
      (await db.selectFrom('items').select('name').orderBy('name').execute()).map((r) => r.name),
      ['child', 'from the worker', 'parent'],
    );
  });

  it('a server write made while a worker statement holds the write lock waits for it and succeeds', async () => {
    await offLoop.selectFrom('bulk').selectAll().execute();
    const bulk = slowInsert(offLoop, 'worker', 400_000);
    // Give the worker's statement time to take the lock; either order must succeed.
    await sleep(20);
    await db.insertInto('bulk').values({ tag: 'server', n: 1 }).execute();
    await db.transaction().execute((trx) => trx.insertInto('bulk').values({ tag: 'server', n: 2 }).execute());
    await bulk;
    const counts = await db
      .selectFrom('bulk')
      .select(['tag', (eb) => eb.fn.countAll<number>().as('rows')])
      .groupBy('tag')
      .orderBy('tag')
      .execute();
    assert.deepEqual(counts, [
      { tag: 'server', rows: 2 },
      { tag: 'worker', rows: 400_000 },
    ]);
  });

  it('shows a write to a caller that awaited it, on the server connection at once, though reads keep a snapshot open every turn', async () => {
    // Requests under load: a read on the server connection every turn, then 2 ms of work, so a
    // read snapshot older than the worker's commit is open when the worker's answer arrives.
    let reading = true;
    const readEveryTurn = async () => {
      while (reading) {
        await db.selectFrom('items').select('name').execute();
        const until = performance.now() + 2;
        while (performance.now() < until);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const readers = readEveryTurn();
    try {
      for (const name of ['one', 'two', 'three']) {
        await offLoop.insertInto('items').values({ name }).execute();
        const seen = await db.selectFrom('items').select('name').where('name', '=', name).execute();
        assert.deepEqual(seen, [{ name }], `the server connection did not see ${name}`);
        const gone = await offLoop.deleteFrom('items').where('name', '=', name).returning('name').execute();
        assert.deepEqual(gone, [{ name }]);
        assert.deepEqual(await db.selectFrom('items').select('name').where('name', '=', name).execute(), []);
      }
    } finally {
      reading = false;
      await readers;
    }
  });
});
