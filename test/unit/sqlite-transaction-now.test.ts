/**
 * inTransaction on SQLite begins at once when the connection is free (src/storage/sqlite/
 * transaction-now.ts) and keeps every promise of the group commit: each transaction resolves only
 * once committed, a failed one alone rolls back, a failed COMMIT fails the batch, a held
 * connection is waited for, an ended transaction refuses queries.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { openStorage } from '../../src/storage/connect.js';
import { prepared } from '../../src/storage/prepared.js';
import SQLite from '../../src/storage/sqlite/binding.js';
import { inTransaction } from '../../src/storage/transaction.js';
import { holdTransaction } from '../helpers/hold.js';
import { type ScratchDb as Db, openScratchSqlite, type ScratchSqlite } from '../helpers/scratch-sqlite.js';

const insertItem = prepared((db, name: string) => (db as Db).insertInto('items').values({ name }));

describe('SQLite inTransaction: begun at once on a free connection', () => {
  let scratch: ScratchSqlite;
  let db: Db;
  let committed: ScratchSqlite['committed'];
  let names: ScratchSqlite['names'];
  before(async () => {
    scratch = await openScratchSqlite('schoolauth-trx-now-');
    ({ db, committed, names } = scratch);
  });

  after(() => scratch.close());

  beforeEach(() => scratch.clear());

  it('runs the work within the call when the connection is free, and resolves once it is committed', async () => {
    let ran = false;
    const done = inTransaction(db, async (trx) => {
      ran = true;
      await insertItem.run(trx, 'now');
    });
    assert.equal(ran, true, 'the work waited for a promise before it began');
    assert.equal(committed('now'), 0, 'committed before the end of the turn');
    await done;
    assert.equal(committed('now'), 1);
  });

  it('waits for a transaction that holds the connection, then runs', async () => {
    const held = await holdTransaction(db, (trx) => insertItem.run(trx as Db, 'first'));
    let ran = false;
    const waiting = inTransaction(db, async (trx) => {
      ran = true;
      await insertItem.run(trx, 'second');
    });
    await nextTurn();
    assert.equal(ran, false, 'the second ran inside the first’s open transaction');
    await Promise.all([held.release(), waiting]);
    assert.equal(committed('first') + committed('second'), 2);
  });

  it('resolves each of many concurrent transactions only once its rows are committed', async () => {
    const all = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    await Promise.all(
      all.map(async (name) => {
        await inTransaction(db, (trx) => insertItem.run(trx, name));
        assert.equal(committed(name), 1, `${name} resolved before it was committed`);
      }),
    );
    assert.deepEqual(await names(), all);
  });

  it('rolls back only the failed transaction of those sharing a commit, whichever path each took', async () => {
    const results = await Promise.allSettled([
      inTransaction(db, (trx) => insertItem.run(trx, 'a')),
      inTransaction(db, async (trx) => {
        await insertItem.run(trx, 'b');
        throw new Error('changed my mind');
      }),
      inTransaction(db, (trx) => insertItem.run(trx, 'c')),
      // A work that throws before it returns a promise.
      inTransaction(db, (() => {
        throw new Error('refused at once');
      }) as () => Promise<void>),
      inTransaction(db, (trx) => insertItem.run(trx, 'd')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await names(), ['a', 'c', 'd']);
    assert.equal(committed('b'), 0);
  });

  it('rejects every transaction of a batch whose shared commit fails, and the connection serves the next', async () => {
    const results = await Promise.allSettled([
      inTransaction(db, (trx) => insertItem.run(trx, 'kept-only-if-committed')),
      inTransaction(db, async (trx) => {
        // A deferred foreign key is checked at COMMIT: the shared commit fails.
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await (trx as Db).insertInto('items').values({ name: 'orphan', parent: 'missing' }).execute();
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual(await names(), []);
    await inTransaction(db, (trx) => insertItem.run(trx, 'after'));
    assert.equal(committed('after'), 1);
  });

  it('answers a BEGIN that cannot take the write lock with a rejection, and frees the connection', async () => {
    const impatient = await openStorage(`sqlite:${scratch.path}`, { timeoutSeconds: 0.05 });
    const other = new SQLite(scratch.path);
    try {
      other.exec('begin immediate');
      let outcome: Promise<unknown> | undefined;
      assert.doesNotThrow(() => {
        outcome = inTransaction(impatient.db as Db, (trx) => insertItem.run(trx, 'blocked'));
      });
      await assert.rejects(outcome!, /locked|busy/i);
      other.exec('rollback');
      await inTransaction(impatient.db as Db, (trx) => insertItem.run(trx, 'unblocked'));
      assert.equal(committed('unblocked'), 1);
    } finally {
      other.close();
      await impatient.close();
    }
  });

  it('refuses a query on an ended transaction, through the builder and through a prepared query', async () => {
    let ended!: Db;
    await inTransaction(db, async (trx) => {
      ended = trx as Db;
      await insertItem.run(trx, 'inside');
    });
    await assert.rejects(insertItem.run(ended, 'stray'), /this transaction has ended/);
    await assert.rejects(
      ended.insertInto('items').values({ name: 'stray' }).execute(),
      /this transaction has ended/,
    );
    assert.deepEqual(await names(), ['inside']);
  });
});
