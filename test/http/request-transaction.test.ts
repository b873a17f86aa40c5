/**
 * The request's one transaction on PostgreSQL (src/oauth/request-transaction.ts): an answer
 * commits what was written before it, as the separate statements it replaced had (a replayed
 * code's revocation stands); a failure inside a transaction of the work's own rolls everything
 * back and reaches the caller as it was thrown. On SQLite the work runs as before, on the
 * database itself.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { auditRow, recordAudit } from '../../src/audit/audit.js';
import { OAuthError } from '../../src/errors.js';
import { inRequestTransaction } from '../../src/oauth/request-transaction.js';
import { insertAuditRow } from '../../src/storage/audit.repository.js';
import type { Database } from '../../src/storage/schema.js';
import type { TransactionScope } from '../../src/storage/store.js';
import { inTransaction, TRANSACTION_ATTEMPTS } from '../../src/storage/transaction.js';
import { createTestApp, DIALECTS, PG_URL, type TestApp } from '../helpers/app.js';

/** The request's transaction with its Kysely (the backends' scope carries it; src above storage never sees it). */
const inRequest = <T>(t: TestApp, work: (db: Kysely<Database>) => Promise<T>) =>
  inRequestTransaction(t.ctx.store, (scope) => work((scope as TransactionScope).db));

for (const dialect of DIALECTS) {
  describe(`one transaction per request [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    /** Writes one audit row marked with `marker` (as client_id). */
    const write = (db: Kysely<Database>, marker: string) =>
      insertAuditRow(db, auditRow({ kind: 'token.revoked', clientId: marker }, t.clock.now()));
    const written = async (marker: string) =>
      (await t.ctx.db.selectFrom('audit_events').select('id').where('client_id', '=', marker).execute())
        .length;
    const marker = () => `m-${randomBytes(6).toString('hex')}`;

    it('commits what was written before an answer, and throws that answer', async () => {
      const m = marker();
      const answer = new OAuthError('invalid_grant', 'replayed');
      await assert.rejects(
        inRequest(t, async (db) => {
          await write(db, m);
          throw answer;
        }),
        (error) => error === answer,
      );
      assert.equal(await written(m), 1);
    });

    it('rolls back a transaction of the work’s own that fails, and throws its error as thrown', async () => {
      const before = marker();
      const inside = marker();
      const answer = new OAuthError('invalid_grant', 'inside');
      await assert.rejects(
        inRequest(t, async (db) => {
          await write(db, before);
          await inTransaction(db, async (trx) => {
            await write(trx, inside);
            throw answer;
          });
        }),
        (error) => error === answer,
      );
      assert.equal(await written(inside), 0, 'the inner transaction’s write is rolled back');
      // PostgreSQL: the whole request is one transaction. SQLite: the earlier write was its own.
      assert.equal(await written(before), dialect === 'postgres' ? 0 : 1);
    });

    it('rolls back everything on a fault, and throws the fault', async () => {
      const m = marker();
      const fault = new Error('fault');
      await assert.rejects(
        inRequest(t, async (db) => {
          await write(db, m);
          throw fault;
        }),
        (error) => error === fault,
      );
      assert.equal(await written(m), dialect === 'postgres' ? 0 : 1);
    });
  });
}

describe('a transaction PostgreSQL rolled back to be rerun runs again [postgres]', {
  skip: PG_URL ? false : 'no PostgreSQL',
}, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('postgres');
  });
  after(() => t?.close());

  /** Two rows to lock, in either order. */
  async function twoRows(): Promise<[number, number]> {
    const ids: number[] = [];
    for (const m of ['lock-a', 'lock-b']) {
      await recordAudit(
        t.ctx.store,
        { kind: 'token.revoked', clientId: `${m}-${randomBytes(4).toString('hex')}` },
        0,
      );
      const row = await t.ctx.db
        .selectFrom('audit_events')
        .select('id')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      ids.push(Number(row.id));
    }
    return ids as [number, number];
  }

  const lock = (db: Kysely<Database>, id: number) =>
    sql`select id from audit_events where id = ${id} for update`.execute(db);

  it('two requests that lock two rows in opposite orders both complete: the deadlock victim is run again', async () => {
    const [x, y] = await twoRows();
    let firstLocks = 0;
    let bothHoldOne!: () => void;
    const barrier = new Promise<void>((resolve) => {
      bothHoldOne = resolve;
    });
    const runs = [0, 0];
    const request = (index: number, first: number, second: number) =>
      inRequest(t, async (db) => {
        runs[index]! += 1;
        await lock(db, first);
        // The first run of each waits until both hold their first row: then each waits on the
        // other's (deadlock_detected, 40P01). A rerun finds the other committed.
        if (runs[index] === 1) {
          firstLocks += 1;
          if (firstLocks === 2) bothHoldOne();
          await barrier;
        }
        await lock(db, second);
        return index;
      });
    const answers = await Promise.all([request(0, x, y), request(1, y, x)]);
    assert.deepEqual(answers, [0, 1]);
    assert.deepEqual([...runs].sort(), [1, 2], 'one of the two ran once, the deadlock victim twice');
  });

  it(`a transaction is run at most ${TRANSACTION_ATTEMPTS} times; then the failure reaches the caller`, async () => {
    let runs = 0;
    await assert.rejects(
      inRequest(t, async (db) => {
        runs += 1;
        await sql`do $$ begin raise exception 'conflict' using errcode = '40001'; end $$`.execute(db);
      }),
      (error) => (error as { code?: string }).code === '40001',
    );
    assert.equal(runs, TRANSACTION_ATTEMPTS);
  });

  it('any other failure is not run again', async () => {
    let runs = 0;
    await assert.rejects(
      inTransaction(t.ctx.db, async (trx) => {
        runs += 1;
        await sql`do $$ begin raise exception 'unique' using errcode = '23505'; end $$`.execute(trx);
      }),
      (error) => (error as { code?: string }).code === '23505',
    );
    assert.equal(runs, 1);
  });
});
