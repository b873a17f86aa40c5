/** The GET /account answer kept while unchanged (src/storage/sqlite/account-answers.ts). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { accountAnswerNow } from '../../src/storage/sqlite/account-answers.js';
import { NOT_NOW, readNow } from '../../src/storage/sqlite/read-now.js';

describe('the /account answer cache on SQLite', () => {
  let storage: Storage;
  let reads = 0;
  /** The kept answer, or a new one whose text counts the reads so far. */
  const answer = () => {
    const read = accountAnswerNow(storage.db, 'acc', () => {
      reads += 1;
      return readNow(`answer ${reads}`);
    });
    return read.now ? read.value : read;
  };

  before(async () => {
    storage = await openStorage('sqlite::memory:');
    await migrateToLatest(storage.db);
    const { db } = storage;
    await db
      .insertInto('schools')
      .values({
        id: 's1',
        slug: 's1',
        name: 'One',
        description: '',
        settings: '{}',
        appearance: '{}',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await db
      .insertInto('schools')
      .values({
        id: 's2',
        slug: 's2',
        name: 'Two',
        description: '',
        settings: '{}',
        appearance: '{}',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await db
      .insertInto('accounts')
      .values({
        id: 'acc',
        email: 'a@example.org',
        name: 'A',
        password_hash: 'x',
        locale: 'en',
        disabled: 0,
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await db
      .insertInto('memberships')
      .values({ account_id: 'acc', school_id: 's1', role: 'owner', created_at: 1 })
      .execute();
    await sql`create table unrelated (name text primary key)`.execute(db);
  });

  after(() => storage.close());

  it('keeps the answer while nothing changed and through inserts into other tables', async () => {
    await nextTurn();
    assert.equal(answer(), 'answer 1');
    assert.equal(answer(), 'answer 1');
    await storage.db
      .insertInto('unrelated' as never)
      .values({ name: 'u' } as never)
      .execute();
    assert.equal(answer(), 'answer 1');
  });

  it('reads again after a plain INSERT into one of its tables: a new membership changes the answer', async () => {
    await storage.db
      .insertInto('memberships')
      .values({ account_id: 'acc', school_id: 's2', role: 'admin', created_at: 1 })
      .execute();
    assert.equal(answer(), 'answer 2');
    await storage.db.updateTable('schools').set({ name: 'Uno' }).where('id', '=', 's1').execute();
    assert.equal(answer(), 'answer 3');
  });

  it('answers NOT_NOW where no change stamps are kept (PostgreSQL)', () => {
    assert.equal(
      accountAnswerNow({}, 'acc', () => readNow('x')),
      NOT_NOW,
    );
  });
});
