import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { prepared } from '../../src/storage/prepared.js';
import SQLite from '../../src/storage/sqlite/binding.js';
import { NOT_NOW, readNow } from '../../src/storage/sqlite/read-now.js';
import { inTransaction } from '../../src/storage/transaction.js';
import { holdTransaction } from '../helpers/hold.js';
import { type ScratchDb as Db, openScratchSqlite, type ScratchSqlite } from '../helpers/scratch-sqlite.js';

const itemNamed = prepared((db, name: string) =>
  (db as Db).selectFrom('items').select('name').where('name', '=', name),
);

const insertItem = prepared((db, name: string) => (db as Db).insertInto('items').values({ name }));

describe('SQLite driver: group commit and immediate reads', () => {
  let scratch: ScratchSqlite;
  let db: Db;
  let committed: ScratchSqlite['committed'];
  let names: ScratchSqlite['names'];
  const insert = (trx: Db, name: string) => trx.insertInto('items').values({ name }).execute();

  before(async () => {
    scratch = await openScratchSqlite('schoolauth-driver-');
    ({ db, committed, names } = scratch);
  });

  after(() => scratch.close());

  beforeEach(() => scratch.clear());

  it('resolves each of many concurrent transactions only once its rows are committed', async () => {
    const all = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    await Promise.all(
      all.map(async (name) => {
        await db.transaction().execute((trx) => insert(trx, name));
        assert.equal(committed(name), 1, `${name} resolved before it was committed`);
      }),
    );
    assert.deepEqual(await names(), all);
  });

  it('rolls back only the failed transaction of those sharing a commit', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => insert(trx, 'a')),
      db.transaction().execute(async (trx) => {
        await insert(trx, 'b');
        throw new Error('changed my mind');
      }),
      db.transaction().execute((trx) => insert(trx, 'c')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await names(), ['a', 'c']);
    assert.equal(committed('b'), 0);
  });

  it('rolls back a failed first transaction of a batch and commits the rest', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await insert(trx, 'a');
        throw new Error('changed my mind');
      }),
      db.transaction().execute((trx) => insert(trx, 'b')),
      db.transaction().execute(async (trx) => {
        await insert(trx, 'c');
        throw new Error('changed my mind too');
      }),
      db.transaction().execute((trx) => insert(trx, 'd')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await names(), ['b', 'd']);
    assert.equal(committed('b') + committed('d'), 2);
    assert.equal(committed('a') + committed('c'), 0);
  });

  it('after a failed transaction, the batch’s earlier ones are run again as they ran: same ids, same effects', async () => {
    await sql`create table if not exists counters (id integer primary key autoincrement, name text)`.execute(
      db,
    );
    await db.deleteFrom('counters').execute();
    const before = Number(
      (
        await sql<{
          n: number;
        }>`select coalesce(max(seq), 0) as n from sqlite_sequence where name = 'counters'`.execute(db)
      ).rows[0]?.n ?? 0,
    );
    const add = async (trx: Db, name: string) =>
      Number((await trx.insertInto('counters').values({ name }).executeTakeFirstOrThrow()).insertId);
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => add(trx, 'x')),
      db.transaction().execute(async (trx) => {
        await add(trx, 'y');
        throw new Error('changed my mind');
      }),
      db.transaction().execute((trx) => add(trx, 'z')),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected')),
      [before + 1, 'rejected', before + 2],
    );
    const rows = await db.selectFrom('counters').select(['id', 'name']).orderBy('id').execute();
    assert.deepEqual(rows, [
      { id: before + 1, name: 'x' },
      { id: before + 2, name: 'z' },
    ]);
  });

  it('does not run again a statement that failed inside a transaction that went on and committed', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await insert(trx, 'dup');
        await assert.rejects(insert(trx, 'dup'), /UNIQUE/);
        await insert(trx, 'after-dup');
      }),
      db.transaction().execute(async (trx) => {
        await insert(trx, 'doomed');
        throw new Error('changed my mind');
      }),
      db.transaction().execute((trx) => insert(trx, 'last')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await names(), ['after-dup', 'dup', 'last']);
    assert.equal(committed('doomed'), 0);
  });

  it('rejects every transaction of a batch whose shared commit fails, and keeps none of it', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => insert(trx, 'kept-only-if-committed')),
      db.transaction().execute(async (trx) => {
        // A deferred foreign key is checked at COMMIT: the shared commit fails.
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await trx.insertInto('items').values({ name: 'orphan', parent: 'missing' }).execute();
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual(await names(), []);
    // The connection is usable again.
    await db.transaction().execute((trx) => insert(trx, 'after'));
    assert.equal(committed('after'), 1);
  });

  it('fails the batch SQLite rolled back on its own, and starts the next transaction afresh', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => insert(trx, 'lost')),
      // What SQLite does by itself on an I/O error or a full disk: the whole transaction is gone.
      db.transaction().execute((trx) => sql`rollback`.execute(trx)),
      db.transaction().execute((trx) => insert(trx, 'afresh')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'fulfilled'],
    );
    assert.equal(committed('lost'), 0);
    assert.equal(committed('afresh'), 1);
  });

  it('commits a pending batch before a write outside any transaction answers', async () => {
    const pending = db.transaction().execute((trx) => insert(trx, 'in-batch'));
    // Let the transaction run (microtasks only) but not the end of this event-loop turn.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    await db.insertInto('items').values({ name: 'outside' }).execute();
    assert.equal(committed('outside'), 1);
    assert.equal(committed('in-batch'), 1);
    await pending;
  });

  it('runs a query outside a transaction only after a transaction holding the connection ends', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const holding = db.transaction().execute(async (trx) => {
      await insert(trx, 'held');
      await gate;
    });
    await nextTurn();
    let read: unknown[] | undefined;
    const reading = itemNamed.all(db, 'held').then((rows) => {
      read = rows;
    });
    await nextTurn();
    assert.equal(read, undefined, 'the read ran inside another request’s open transaction');
    open();
    await Promise.all([holding, reading]);
    assert.deepEqual(read, [{ name: 'held' }]);
    assert.equal(committed('held'), 1);
  });

  it('runs the queries of an inTransaction transaction inside it: they see its writes and roll back with it', async () => {
    await assert.rejects(
      inTransaction(db, async (trx) => {
        await insertItem.run(trx, 'undone');
        assert.deepEqual(await itemNamed.first(trx, 'undone'), { name: 'undone' });
        throw new Error('the request failed');
      }),
      /the request failed/,
    );
    assert.equal(await itemNamed.first(db, 'undone'), undefined);
    await inTransaction(db, (trx) => insertItem.run(trx, 'kept'));
    assert.equal(committed('kept'), 1);
  });

  it('refuses a query on a finished transaction instead of running it on the connection another holds', async () => {
    let finished!: Db;
    await inTransaction(db, async (trx) => {
      finished = trx as Db;
      await insertItem.run(trx, 'first');
    });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const holding = inTransaction(db, async (trx) => {
      await insertItem.run(trx, 'second');
      await gate;
    });
    await nextTurn();
    await assert.rejects(insertItem.run(finished, 'stray'), /this transaction has ended/);
    open();
    await holding;
    assert.deepEqual(await names(), ['first', 'second']);
  });

  describe('reads of one event-loop turn', () => {
    /** Another process's connection: writes and checkpoints without waiting for a lock. */
    let other: SQLite.Database;
    const otherInserts = (name: string) => other.prepare('insert into items (name) values (?)').run(name);

    before(() => {
      other = new SQLite(scratch.path, { timeout: 0 });
    });
    after(() => other.close());

    it('share one snapshot: another connection’s commit shows from the next turn on', async () => {
      await nextTurn();
      assert.equal(await itemNamed.first(db, 'elsewhere'), undefined);
      otherInserts('elsewhere');
      assert.equal(await itemNamed.first(db, 'elsewhere'), undefined, 'a second snapshot within the turn');
      await nextTurn();
      assert.deepEqual(await itemNamed.first(db, 'elsewhere'), { name: 'elsewhere' });
    });

    it('hold no read lock past their turn: a TRUNCATE checkpoint by another connection completes', async () => {
      await nextTurn();
      await itemNamed.first(db, 'anything');
      otherInserts('wal-frame');
      const [during] = other.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      assert.equal(during!.busy, 1, 'the turn’s read transaction is open');
      await nextTurn();
      const [afterwards] = other.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number }>;
      assert.deepEqual({ busy: afterwards!.busy, log: afterwards!.log }, { busy: 0, log: 0 });
    });

    it('end before a transaction of the same turn, which sees commits made meanwhile and can write', async () => {
      await nextTurn();
      await itemNamed.first(db, 'parent');
      otherInserts('parent');
      await db.transaction().execute(async (trx) => {
        const seen = await trx.selectFrom('items').select('name').where('name', '=', 'parent').execute();
        assert.deepEqual(seen, [{ name: 'parent' }]);
        await trx.insertInto('items').values({ name: 'child', parent: 'parent' }).execute();
      });
      assert.equal(committed('child'), 1);
    });

    it('end before a write outside any transaction, which is committed when it answers', async () => {
      await nextTurn();
      await itemNamed.first(db, 'solo');
      await insertItem.run(db, 'solo');
      assert.equal(committed('solo'), 1);
      assert.deepEqual(await itemNamed.first(db, 'solo'), { name: 'solo' });
    });
  });

  it('answers an immediate read with the committed row when the connection is free', async () => {
    await db.transaction().execute((trx) => insert(trx, 'free'));
    assert.deepEqual(await itemNamed.first(db, 'free'), { name: 'free' });
    assert.equal(await itemNamed.first(db, 'absent'), undefined);
  });
  it('reads synchronously with allNow and firstNow while the connection is free, and answers NOT_NOW while a transaction holds it', async () => {
    await db.transaction().execute((trx) => insert(trx, 'now'));
    assert.deepEqual(itemNamed.allNow(db, 'now'), readNow([{ name: 'now' }]));
    assert.deepEqual(itemNamed.firstNow(db, 'now'), readNow({ name: 'now' }));
    assert.deepEqual(itemNamed.firstNow(db, 'absent'), readNow(undefined));
    const held = await holdTransaction(db, (trx) => insert(trx, 'held-now'));
    assert.equal(
      itemNamed.firstNow(db, 'held-now'),
      NOT_NOW,
      'it would read inside another request’s transaction',
    );
    assert.equal(itemNamed.allNow(db, 'held-now'), NOT_NOW);
    await held.release();
    assert.deepEqual(itemNamed.firstNow(db, 'held-now'), readNow({ name: 'held-now' }));
  });

  it('answers rows as objects named by their columns: aliases, nulls, numbers, a repeated name keeps the last', async () => {
    await insert(db, 'a');
    await db.insertInto('items').values({ name: 'b', parent: 'a' }).execute();
    const { rows } = await sql<Record<string, unknown>>`
      select i.name, p.name as "parent name", i.parent, 7 as "7", 'first' as dup, 'last' as dup, length(i.name) as n
      from items i left join items p on p.name = i.parent order by i.name`.execute(db);
    assert.deepEqual(rows, [
      { name: 'a', 'parent name': null, parent: null, 7: 7, dup: 'last', n: 1 },
      { name: 'b', 'parent name': 'a', parent: 'a', 7: 7, dup: 'last', n: 1 },
    ]);
    assert.deepEqual(Object.keys(rows[0]!), ['7', 'name', 'parent name', 'parent', 'dup', 'n']);
  });

  it('keeps a column named __proto__ as a plain property, not as the prototype', async () => {
    const { rows } = await sql<Record<string, unknown>>`select 'x' as "__proto__", 1 as one`.execute(db);
    assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(rows[0], '__proto__')?.value, 'x');
    assert.equal(rows[0]!.one, 1);
  });
});
