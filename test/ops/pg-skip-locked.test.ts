/**
 * The background writes to a grant's token rows on PostgreSQL (docs/security.md "Lock order"):
 * the successor erasure and the prune's deletes of expired tokens take no grant lock, so they
 * never wait on a token row another transaction holds (a revocation, which holds the grant): they
 * skip it, and a later run takes it. A job that waited there, holding the rows it had already
 * taken, would be one half of a deadlock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { prune } from '../../src/ops/prune.js';
import { eraseEndedSuccessors } from '../../src/storage/refresh-tokens.repository.js';
import { createTestApp, PG_URL, type TestApp } from '../helpers/app.js';
import { holdTransaction } from '../helpers/hold.js';
import { addAccount, addClient, addGrant, addToken } from './fixtures.js';

const DAY = 86400;

/** The promise's value, or a failure when it takes longer than `ms` (it waited on a lock). */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  const late = sleep(ms).then(() => {
    throw new Error(`still waiting after ${ms} ms: it waited on the held row`);
  });
  return Promise.race([promise, late]);
}

describe('background writes skip the token rows a transaction holds [postgres]', {
  skip: PG_URL ? false : 'no PostgreSQL',
}, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('postgres');
  });
  after(() => t?.close());

  async function grantWithTokens(table: 'access_tokens' | 'refresh_tokens', expiresAt: number) {
    const now = t.clock.now();
    const accountId = await addAccount(t.ctx.db, now - 60 * DAY);
    const clientId = await addClient(t.ctx.db, 'dynamic', now - 60 * DAY);
    const grant = { id: await addGrant(t.ctx.db, accountId, clientId, now - 60 * DAY), accountId, clientId };
    const hashes = [
      await addToken(t.ctx.db, table, grant, now - 60 * DAY, expiresAt),
      await addToken(t.ctx.db, table, grant, now - 60 * DAY, expiresAt),
    ];
    return hashes as [string, string];
  }

  const hold = (table: 'access_tokens' | 'refresh_tokens', hash: string) =>
    holdTransaction(t.ctx.db, (trx) =>
      sql`select 1 from ${sql.table(table)} where token_hash = ${hash} for update`.execute(trx),
    );

  it('the successor erasure erases every ended pair but the held row’s, and that one on its next run', async () => {
    const now = t.clock.now();
    const [held, free] = await grantWithTokens('refresh_tokens', now + 30 * DAY);
    await t.ctx.db
      .updateTable('refresh_tokens')
      .set({ rotated_at: now - DAY, successor: 'sealed' })
      .where('token_hash', 'in', [held, free])
      .execute();
    const holding = await hold('refresh_tokens', held);
    try {
      assert.equal(await within(2000, eraseEndedSuccessors(t.ctx.db, now - 60)), 1);
    } finally {
      await holding.release();
    }
    assert.equal(await eraseEndedSuccessors(t.ctx.db, now - 60), 1);
    const left = await t.ctx.db
      .selectFrom('refresh_tokens')
      .select('successor')
      .where('token_hash', 'in', [held, free])
      .execute();
    assert.deepEqual(
      left.map((r) => r.successor),
      [null, null],
    );
  });

  it('the prune deletes every long-expired token but the held one, and that one at its next run', async () => {
    const now = t.clock.now();
    const [held, free] = await grantWithTokens('access_tokens', now - 30 * DAY);
    const holding = await hold('access_tokens', held);
    try {
      await within(2000, prune(t.ctx.store.upkeep, t.config, now));
      const left = await t.ctx.db
        .selectFrom('access_tokens')
        .select('token_hash')
        .where('token_hash', 'in', [held, free])
        .execute();
      assert.deepEqual(
        left.map((r) => r.token_hash),
        [held],
      );
    } finally {
      await holding.release();
    }
    await prune(t.ctx.store.upkeep, t.config, now);
    const gone = await t.ctx.db
      .selectFrom('access_tokens')
      .select('token_hash')
      .where('token_hash', 'in', [held, free])
      .execute();
    assert.deepEqual(gone, []);
  });
});
