import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { startCounterSync } from '../../src/rate-limit/counter-sync.js';
import { backoffDelay, countAttempt, refundAttempt } from '../../src/rate-limit/signin-throttle.js';
import { WindowCounters } from '../../src/rate-limit/window-counters.js';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { addToWindows } from '../../src/storage/rate-limit-windows.repository.js';
import type { Database } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';

for (const dialect of DIALECTS) {
  describe(`rate-limit counters [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { env: { RATE_LIMITS: 'on' } });
    });
    after(() => t.close());

    it('sign-in: the RATE_LIMIT_SIGNIN-th attempt blocks its key at once, the back-off doubles, 15 quiet minutes forget', async () => {
      let now = t.clock.now();
      const count = (key: string) => countAttempt(t.ctx.store.signinThrottle, key, 3, now);
      const seen = async (key: string) => {
        const r = await count(key);
        return [r.counted, r.failures, r.retryAfter];
      };
      assert.deepEqual(await seen('s:1'), [true, 1, 0]);
      assert.deepEqual(await seen('s:1'), [true, 2, 0]);
      assert.deepEqual(await seen('s:1'), [true, 3, 0], 'the third is still checked…');
      assert.deepEqual(await seen('s:1'), [false, 3, 60], '…and the key is blocked from then on');
      now += 59;
      assert.deepEqual(await seen('s:1'), [false, 3, 1], 'a refused attempt changes nothing');
      now += 1;
      assert.deepEqual(await seen('s:1'), [true, 4, 0]);
      assert.deepEqual(await seen('s:1'), [false, 4, 120], 'the next counted attempt doubles the wait');
      const row = await t.ctx.db
        .selectFrom('signin_throttle')
        .selectAll()
        .where('key', '=', 's:1')
        .executeTakeFirst();
      assert.equal(Number(row!.refused), 1, 'refusals since the last counted attempt');
      now += 15 * 60 - 1;
      assert.deepEqual(await seen('s:1'), [true, 5, 0], 'remembered until 15 quiet minutes have passed');
      now += 15 * 60;
      assert.deepEqual(await seen('s:1'), [true, 1, 0], 'then forgotten');
      assert.deepEqual(
        [2, 3, 4, 5, 8, 9, 20].map((n) => backoffDelay(n, 3)),
        [0, 60, 120, 240, 1920, 3600, 3600],
      );
    });

    it('sign-in: concurrent attempts on one key — exactly RATE_LIMIT_SIGNIN are counted (one atomic upsert each)', async () => {
      const now = t.clock.now();
      const results = await Promise.all(
        Array.from({ length: 25 }, () => countAttempt(t.ctx.store.signinThrottle, 's:2', 3, now)),
      );
      assert.equal(results.filter((r) => r.counted).length, 3);
      assert.deepEqual(
        results
          .filter((r) => r.counted)
          .map((r) => r.failures)
          .sort(),
        [1, 2, 3],
      );
      assert.ok(results.filter((r) => !r.counted).every((r) => r.retryAfter === 60));
    });

    it('sign-in: a refunded attempt is as if never made — a block it started is lifted, a later one is kept', async () => {
      const now = t.clock.now();
      await countAttempt(t.ctx.store.signinThrottle, 's:3', 3, now);
      await countAttempt(t.ctx.store.signinThrottle, 's:3', 3, now);
      const third = await countAttempt(t.ctx.store.signinThrottle, 's:3', 3, now);
      await refundAttempt(t.ctx.store.signinThrottle, 's:3', third.failures, 3, now);
      const again = await countAttempt(t.ctx.store.signinThrottle, 's:3', 3, now);
      assert.deepEqual([again.counted, again.failures], [true, 3], 'the refund lifted the block');

      const mine = await countAttempt(t.ctx.store.signinThrottle, 's:4', 3, now);
      await countAttempt(t.ctx.store.signinThrottle, 's:4', 3, now);
      await countAttempt(t.ctx.store.signinThrottle, 's:4', 3, now);
      await refundAttempt(t.ctx.store.signinThrottle, 's:4', mine.failures, 3, now);
      const blocked = await countAttempt(t.ctx.store.signinThrottle, 's:4', 3, now);
      assert.deepEqual([blocked.counted, blocked.failures], [false, 2], 'another attempt’s block stays');
    });

    if (dialect === 'postgres') {
      it('two instances on one database share one sign-in count', async () => {
        const schema = t.ctx.storage.schema!;
        const second: Storage = await openStorage(process.env.SCHOOLAUTH_TEST_PG_URL!, {
          schema,
          poolSize: 2,
        });
        try {
          const now = t.clock.now();
          const attempts = [];
          for (const store of [t.ctx.store, second.store, t.ctx.store])
            attempts.push(await countAttempt(store.signinThrottle, 's:shared', 2, now));
          assert.deepEqual(
            attempts.map((r) => r.counted),
            [true, true, false],
          );
        } finally {
          await second.close();
        }
      });

      it('a flush while the database is down fails no one, warns once, and its hits go with the next flush', async () => {
        // Nothing listens on port 9 (discard): every statement fails to connect. (openStorage
        // refuses such a URL at start, so the pool is made here.)
        const down = new Kysely<Database>({
          dialect: new PostgresDialect({
            pool: new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:9/down', max: 1 }),
          }),
        });
        const warnings: string[] = [];
        const log = { info: () => undefined, warn: (_: object, msg: string) => warnings.push(msg) };
        const counters = new WindowCounters(1000);
        // A frozen clock: the hits must stay in one window until the last flush.
        const at = t.clock.now();
        const now = () => at;
        const failing = startCounterSync(
          counters,
          { shared: true, add: (increments) => addToWindows(down, increments) },
          { intervalMs: 60_000, now, log },
        );
        for (let i = 0; i < 4; i++) assert.equal(counters.hit('w:down', 10, 60, now()).allowed, true);
        await failing.flush();
        counters.hit('w:down', 10, 60, now());
        await failing.flush();
        await failing.stop();
        await down.destroy();
        assert.equal(warnings.length, 1, 'one warning per outage, not one per interval');
        const working = startCounterSync(counters, t.ctx.store.rateLimitWindows, {
          intervalMs: 60_000,
          now,
          log,
        });
        await working.stop();
        const row = await t.ctx.db
          .selectFrom('rate_limits')
          .select('count')
          .where('key', '=', 'w:down')
          .executeTakeFirstOrThrow();
        assert.equal(row.count, 5, 'the hits kept through the outage reach the table');
      });
    }
  });
}
