/**
 * Issue 23 §5: the system clock stepping back 30 s (simulated through the app's clock, the
 * TestClock). A used code or a rotated refresh token is not usable again, and nothing that had
 * expired comes back. On several instances, a rotation stamped by a clock far ahead of this one's
 * is not a grace-window repeat either.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/tokens.js';
import type { Account } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { captureLogLines } from '../helpers/log-lines.js';
import {
  createPerson,
  errorOf,
  exchangeCode,
  mintCode,
  type RegisteredClient,
  refresh,
  register,
  type TokenResponse,
  tokensFor,
} from '../helpers/oauth.js';

const STEP_BACK = -30;

for (const dialect of DIALECTS) {
  describe(`the clock steps back 30 s [${dialect}]`, () => {
    let t: TestApp;
    let client: RegisteredClient;
    let person: Account;
    before(async () => {
      t = await createTestApp(dialect, {
        env: { CODE_TTL: '60', ACCESS_TOKEN_TTL: '60', REFRESH_TOKEN_TTL: '120', REFRESH_GRACE: '30' },
      });
      client = await register(t);
      person = await createPerson(t);
    });
    after(() => t.close());
    // Each test's step back is undone at its end, as NTP would: later tests start in step.
    let stepped = 0;
    const stepBack = () => {
      t.clock.advance(STEP_BACK);
      stepped -= STEP_BACK;
    };
    const catchUp = () => {
      t.clock.advance(stepped);
      stepped = 0;
    };
    afterEach(catchUp);

    const userinfo = (token: string) =>
      t.app.inject({ url: '/api/oauth/userinfo', headers: { authorization: `Bearer ${token}` } });

    it('a used code stays used', async () => {
      const minted = await mintCode(t, client, person);
      assert.equal((await exchangeCode(t, client, minted)).statusCode, 200);
      stepBack();
      assert.deepEqual(errorOf(await exchangeCode(t, client, minted)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('an expired code does not come back', async () => {
      const minted = await mintCode(t, client, person);
      t.clock.advance(61);
      assert.deepEqual(errorOf(await exchangeCode(t, client, minted)), {
        status: 400,
        error: 'invalid_grant',
      });
      stepBack();
      assert.deepEqual(errorOf(await exchangeCode(t, client, minted)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('an expired access token does not come back', async () => {
      const tokens = await tokensFor(t, client, person);
      assert.equal((await userinfo(tokens.access_token)).statusCode, 200);
      t.clock.advance(61);
      assert.equal((await userinfo(tokens.access_token)).statusCode, 401);
      stepBack();
      assert.equal((await userinfo(tokens.access_token)).statusCode, 401, 'still expired');
    });

    it('an expired refresh token does not come back', async () => {
      const tokens = await tokensFor(t, client, person);
      t.clock.advance(121);
      assert.deepEqual(errorOf(await refresh(t, client, tokens.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
      stepBack();
      assert.deepEqual(errorOf(await refresh(t, client, tokens.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('a refresh token rotated more than REFRESH_GRACE ago is not a repeat after the step back: the family is revoked', async () => {
      const first = await tokensFor(t, client, person);
      const rotated = await refresh(t, client, first.refresh_token);
      assert.equal(rotated.statusCode, 200);
      const next = rotated.json() as TokenResponse;
      t.clock.advance(31);
      assert.equal((await userinfo(next.access_token)).statusCode, 200, 'time has passed the grace window');
      stepBack();
      assert.deepEqual(errorOf(await refresh(t, client, first.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
      assert.equal((await userinfo(next.access_token)).statusCode, 401, 'reuse revoked the whole family');
    });

    it('a repeat just after a rotation and a step back answers the same pair, never a second successor', async () => {
      const first = await tokensFor(t, client, person);
      const rotated = (await refresh(t, client, first.refresh_token)).json() as TokenResponse;
      stepBack();
      const repeat = await refresh(t, client, first.refresh_token);
      assert.equal(repeat.statusCode, 200);
      assert.equal((repeat.json() as TokenResponse).refresh_token, rotated.refresh_token, 'the same pair');
      catchUp();
      t.clock.advance(31);
      assert.deepEqual(errorOf(await refresh(t, client, first.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('a rotation stamped by another instance’s clock far ahead is not inside this one’s grace window', async () => {
      const first = await tokensFor(t, client, person);
      const next = (await refresh(t, client, first.refresh_token)).json() as TokenResponse;
      // The instance that rotated runs 90 s ahead of this one.
      await t.ctx.db
        .updateTable('refresh_tokens')
        .set({ rotated_at: t.clock.now() + 90 })
        .where('token_hash', '=', hashSecret(first.refresh_token))
        .execute();
      assert.deepEqual(errorOf(await refresh(t, client, first.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
      assert.equal(
        (await userinfo(next.access_token)).statusCode,
        401,
        'treated as reuse: the family is revoked',
      );
    });
  });
}

describe('the clock steps back: what the operator sees', () => {
  it('one warning in the log, with how far the clock fell behind', async () => {
    const { sink, lines } = captureLogLines<{ msg?: string; seconds?: number }>();
    const t = await createTestApp('sqlite', { env: { LOG_LEVEL: 'warn' }, logStream: sink });
    try {
      // Stopped, so the step is exactly 30 s: a running clock that crosses a second boundary between
      // the first answer and the step back would make the wall clock 29 s behind the carried one.
      t.clock.freeze();
      const client = await register(t);
      t.clock.advance(STEP_BACK);
      await register(t);
      await register(t);
      const warnings = lines.filter((l) => l.msg?.startsWith('the system clock stepped back'));
      assert.equal(warnings.length, 1, JSON.stringify(lines));
      // 30 s, plus the seconds that really passed since the first answer on a slow machine.
      assert.ok(warnings[0]!.seconds! >= 30 && warnings[0]!.seconds! <= 35, JSON.stringify(warnings));
      assert.ok(client.client_id);
    } finally {
      await t.close();
    }
  });
});
