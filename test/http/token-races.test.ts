import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import {
  createPerson,
  errorOf,
  exchangeCode,
  introspect,
  mintCode,
  type RegisteredClient,
  refresh,
  register,
  type TokenResponse,
  tokensFor,
} from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`token races [${dialect}]`, () => {
    let t: TestApp;
    let client: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    before(async () => {
      t = await createTestApp(dialect);
      client = await register(t);
      person = await createPerson(t);
    });
    after(() => t.close());

    const active = async (token: string) => (await introspect(t, client, token)).json().active as boolean;

    it('20 concurrent redemptions of one code: exactly one success, then every token from it revoked', async () => {
      const minted = await mintCode(t, client, person);
      const answers = await Promise.all(Array.from({ length: 20 }, () => exchangeCode(t, client, minted)));
      const winners = answers.filter((r) => r.statusCode === 200);
      assert.equal(winners.length, 1, 'exactly one redemption succeeds');
      for (const loser of answers.filter((r) => r.statusCode !== 200)) {
        assert.deepEqual(errorOf(loser), { status: 400, error: 'invalid_grant' });
      }
      const won = winners[0]!.json() as TokenResponse;
      // docs/decisions.md "Token endpoint": the code was replayed, so the winner's tokens end up revoked too.
      assert.equal(await active(won.access_token), false);
      assert.equal(await active(won.refresh_token), false);
      assert.deepEqual(errorOf(await refresh(t, client, won.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
      const rows = await t.ctx.db
        .selectFrom('access_tokens')
        .select('revoked_at')
        .where('grant_id', '=', minted.grantId)
        .execute();
      assert.equal(rows.length, 1);
      assert.ok(rows.every((r) => r.revoked_at !== null));
    });

    it('concurrent refreshes inside the grace window all carry the same new pair, which is live', async () => {
      const first = await tokensFor(t, client, person);
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => refresh(t, client, first.refresh_token)),
      );
      const pairs = answers.map((r) => {
        assert.equal(r.statusCode, 200, r.body);
        const body = r.json() as TokenResponse;
        return `${body.access_token} ${body.refresh_token}`;
      });
      assert.equal(new Set(pairs).size, 1);
      const [access, refreshToken] = pairs[0]!.split(' ') as [string, string];
      assert.equal(await active(access), true);
      assert.equal(await active(refreshToken), true);
      assert.equal((await refresh(t, client, refreshToken)).statusCode, 200, 'the new refresh token works');
    });

    it('reuse after the grace window: invalid_grant and every token of the family dead', async () => {
      const first = await tokensFor(t, client, person);
      const second = (await refresh(t, client, first.refresh_token)).json() as TokenResponse;
      t.clock.advance(t.config.refreshGrace + 1);
      const third = (await refresh(t, client, second.refresh_token)).json() as TokenResponse;
      assert.equal(await active(third.access_token), true);
      t.clock.advance(t.config.refreshGrace + 1);
      const reuses = await Promise.all([
        refresh(t, client, first.refresh_token),
        refresh(t, client, second.refresh_token),
      ]);
      for (const res of reuses) assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_grant' });
      for (const token of [
        first.access_token,
        second.access_token,
        third.access_token,
        third.refresh_token,
      ]) {
        assert.equal(await active(token), false);
      }
      assert.deepEqual(errorOf(await refresh(t, client, third.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
    });
  });
}
