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
import type { Kysely } from 'kysely';
import { recordAudit } from '../../src/audit/audit.js';
import { OAuthError } from '../../src/errors.js';
import { inRequestTransaction } from '../../src/oauth/request-transaction.js';
import type { Database } from '../../src/storage/schema.js';
import { inTransaction } from '../../src/storage/transaction.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';

for (const dialect of DIALECTS) {
  describe(`one transaction per request [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    /** Writes one audit row marked with `marker` (as client_id). */
    const write = (db: Kysely<Database>, marker: string) =>
      recordAudit(db, { kind: 'token.revoked', clientId: marker }, t.clock.now());
    const written = async (marker: string) =>
      (await t.ctx.db.selectFrom('audit_events').select('id').where('client_id', '=', marker).execute())
        .length;
    const marker = () => `m-${randomBytes(6).toString('hex')}`;

    it('commits what was written before an answer, and throws that answer', async () => {
      const m = marker();
      const answer = new OAuthError('invalid_grant', 'replayed');
      await assert.rejects(
        inRequestTransaction(t.ctx.db, async (db) => {
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
        inRequestTransaction(t.ctx.db, async (db) => {
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
        inRequestTransaction(t.ctx.db, async (db) => {
          await write(db, m);
          throw fault;
        }),
        (error) => error === fault,
      );
      assert.equal(await written(m), dialect === 'postgres' ? 0 : 1);
    });
  });
}
