import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hit } from '../../src/rate-limit/counter.js';
import { startCounterSync } from '../../src/rate-limit/counter-sync.js';
import {
  backoffDelay,
  clearSigninFailures,
  recordSigninFailure,
  signinRetryAfter,
} from '../../src/rate-limit/signin-throttle.js';
import { WindowCounters } from '../../src/rate-limit/window-counters.js';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';

for (const dialect of DIALECTS) {
  describe(`rate-limit counters [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { env: { RATE_LIMITS: 'on', RATE_LIMIT_SIGNIN: '3' } });
    });
    after(() => t.close());

    it('a fixed window allows `limit` hits, then refuses with the seconds until it resets', async () => {
      const now = t.clock.now();
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await hit(t.ctx.db, 'w:1', 3, 60, now + i));
      assert.deepEqual(
        results.map((r) => [r.allowed, r.count, r.retryAfter]),
        [
          [true, 1, 60],
          [true, 2, 59],
          [true, 3, 58],
          [false, 4, 57],
        ],
      );
      const reset = await hit(t.ctx.db, 'w:1', 3, 60, now + 60);
      assert.deepEqual([reset.allowed, reset.count, reset.retryAfter], [true, 1, 60]);
    });

    it('concurrent hits are counted exactly (one atomic upsert each)', async () => {
      const now = t.clock.now();
      const results = await Promise.all(Array.from({ length: 25 }, () => hit(t.ctx.db, 'w:2', 10, 60, now)));
      assert.deepEqual(
        results.map((r) => r.count).sort((a, b) => a - b),
        Array.from({ length: 25 }, (_, i) => i + 1),
      );
      assert.equal(results.filter((r) => r.allowed).length, 10);
    });

    it('sign-in: blocked after RATE_LIMIT_SIGNIN failures, with a growing back-off; success clears the account', async () => {
      // A frozen clock: the waits below are exact only if no second passes between the calls.
      let now = t.clock.now();
      const ctx = { ...t.ctx, now: () => now };
      const clock = { advance: (seconds: number) => (now += seconds) };
      const ip = '203.0.113.7';
      const email = 'ada@example.com';
      assert.equal(await signinRetryAfter(ctx, email, ip), 0);
      for (let i = 0; i < 2; i++) await recordSigninFailure(ctx, email, ip);
      assert.equal(await signinRetryAfter(ctx, email, ip), 0, 'two failures are not enough');
      await recordSigninFailure(ctx, email, ip);
      assert.equal(await signinRetryAfter(ctx, email, ip), 60);
      assert.equal(await signinRetryAfter(ctx, 'other@example.com', ip), 60, 'the IP is blocked too');
      assert.equal(await signinRetryAfter(ctx, email, '198.51.100.1'), 60, 'and the account from elsewhere');
      clock.advance(60);
      assert.equal(await signinRetryAfter(ctx, email, ip), 0);
      await recordSigninFailure(ctx, email, ip);
      assert.equal(await signinRetryAfter(ctx, email, ip), 120, 'the next failure doubles the wait');
      clock.advance(120);
      await clearSigninFailures(ctx, email);
      await recordSigninFailure(ctx, 'other@example.com', ip);
      assert.equal(await signinRetryAfter(ctx, 'third@example.com', ip), 240, 'the IP keeps its count');
      clock.advance(240 + 15 * 60);
      assert.equal(
        await signinRetryAfter(ctx, 'third@example.com', ip),
        0,
        'forgotten after 15 quiet minutes',
      );
      assert.deepEqual(
        [2, 3, 4, 5, 20].map((n) => backoffDelay(n, 3)),
        [0, 60, 120, 240, 3600],
      );
    });

    if (dialect === 'postgres') {
      it('two instances on one database share one counter', async () => {
        const schema = t.ctx.storage.schema!;
        const second: Storage = await openStorage(process.env.SCHOOLAUTH_TEST_PG_URL!, {
          schema,
          poolSize: 2,
        });
        try {
          const now = t.clock.now();
          const a = await hit(t.ctx.db, 'w:shared', 2, 60, now);
          const b = await hit(second.db, 'w:shared', 2, 60, now);
          const c = await hit(t.ctx.db, 'w:shared', 2, 60, now);
          assert.deepEqual([a.allowed, b.allowed, c.allowed], [true, true, false]);
        } finally {
          await second.close();
        }
      });

      it('a flush while the database is down fails no one, warns once, and its hits go with the next flush', async () => {
        // Nothing listens on port 9 (discard): every statement fails to connect.
        const down: Storage = await openStorage('postgres://postgres@127.0.0.1:9/down', { poolSize: 1 });
        const warnings: string[] = [];
        const log = { info: () => undefined, warn: (_: object, msg: string) => warnings.push(msg) };
        const counters = new WindowCounters(1000);
        // A frozen clock: the hits must stay in one window until the last flush.
        const at = t.clock.now();
        const now = () => at;
        const failing = startCounterSync(counters, down.db, { intervalMs: 60_000, now, log });
        for (let i = 0; i < 4; i++) assert.equal(counters.hit('w:down', 10, 60, now()).allowed, true);
        await failing.flush();
        counters.hit('w:down', 10, 60, now());
        await failing.flush();
        await failing.stop();
        await down.close();
        assert.equal(warnings.length, 1, 'one warning per outage, not one per interval');
        const working = startCounterSync(counters, t.ctx.db, { intervalMs: 60_000, now, log });
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
