/**
 * One answer for every code or refresh token this client cannot use (issue 19, docs/decisions.md "Token endpoint"): unknown,
 * expired, revoked, already used, or issued to another client all answer the same status, `error`
 * and `error_description`, so the token endpoint is no oracle for someone guessing or holding
 * copies of tokens.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { hashSecret } from '../../src/crypto/tokens.js';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import {
  type createPerson,
  exchangeCode,
  mintCode,
  oauthSuite,
  type RegisteredClient,
  refresh,
  register,
  type TokenResponse,
  tokensFor,
} from '../helpers/oauth.js';

const answer = (res: LightMyRequestResponse) => ({ status: res.statusCode, body: res.json() as unknown });

function assertAllSame(answers: Record<string, ReturnType<typeof answer>>): void {
  const [first, ...rest] = Object.entries(answers);
  assert.equal(first![1].status, 400);
  assert.equal((first![1].body as { error: string }).error, 'invalid_grant');
  for (const [name, value] of rest) assert.deepEqual(value, first![1], `${name} answers like ${first![0]}`);
}

for (const dialect of DIALECTS) {
  describe(`token endpoint: one answer for every unusable code or refresh token [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    before(async () => {
      ({ t, pub, person } = await oauthSuite(dialect));
    });
    after(() => t.close());

    const setRefresh = (
      token: string,
      values: { expires_at?: number; revoked_at?: number; rotated_at?: number },
    ) =>
      t.ctx.db
        .updateTable('refresh_tokens')
        .set(values)
        .where('token_hash', '=', hashSecret(token))
        .execute();

    it('refresh tokens: unknown, expired, revoked, reused after the grace window and another client’s', async () => {
      const other = await register(t);
      const expired = await tokensFor(t, pub, person);
      await setRefresh(expired.refresh_token, { expires_at: t.ctx.now() - 1 });
      const revoked = await tokensFor(t, pub, person);
      await setRefresh(revoked.refresh_token, { revoked_at: t.ctx.now() });
      const reused = await tokensFor(t, pub, person);
      assert.equal((await refresh(t, pub, reused.refresh_token)).statusCode, 200);
      await setRefresh(reused.refresh_token, { rotated_at: t.ctx.now() - t.config.refreshGrace - 1 });
      const foreign: TokenResponse = await tokensFor(t, other, person);
      assertAllSame({
        unknown: answer(await refresh(t, pub, `sa_rt_${'0'.repeat(9)}${'A'.repeat(43)}`)),
        garbage: answer(await refresh(t, pub, 'not-a-token')),
        expired: answer(await refresh(t, pub, expired.refresh_token)),
        revoked: answer(await refresh(t, pub, revoked.refresh_token)),
        reused: answer(await refresh(t, pub, reused.refresh_token)),
        'another client’s': answer(await refresh(t, pub, foreign.refresh_token)),
      });
      assert.equal((await refresh(t, other, foreign.refresh_token)).statusCode, 200, 'left to its client');
    });

    it('codes: unknown, expired, already used, of a revoked grant and another client’s', async () => {
      const other = await register(t);
      const unknown = await mintCode(t, pub, person);
      const expired = await mintCode(t, pub, person);
      await t.ctx.db
        .updateTable('authorization_codes')
        .set({ expires_at: t.ctx.now() - 1 })
        .where('code_hash', '=', hashSecret(expired.code))
        .execute();
      const used = await mintCode(t, pub, person);
      assert.equal((await exchangeCode(t, pub, used)).statusCode, 200);
      const revoked = await mintCode(t, pub, person);
      await t.ctx.db
        .updateTable('grants')
        .set({ revoked_at: t.ctx.now() })
        .where('id', '=', revoked.grantId)
        .execute();
      const foreign = await mintCode(t, other, person);
      assertAllSame({
        unknown: answer(
          await exchangeCode(t, pub, { ...unknown, code: `sa_ac_${'0'.repeat(9)}${'A'.repeat(43)}` }),
        ),
        expired: answer(await exchangeCode(t, pub, expired)),
        used: answer(await exchangeCode(t, pub, used)),
        'of a revoked grant': answer(await exchangeCode(t, pub, revoked)),
        'another client’s': answer(await exchangeCode(t, pub, foreign)),
      });
      assert.equal((await exchangeCode(t, other, foreign)).statusCode, 200, 'left to its client');
    });

    it('another client presenting a used code revokes nothing of the rightful client', async () => {
      const other = await register(t);
      const minted = await mintCode(t, pub, person);
      const tokens = (await exchangeCode(t, pub, minted)).json() as TokenResponse;
      assert.equal((await exchangeCode(t, other, minted)).statusCode, 400);
      const row = await t.ctx.db
        .selectFrom('access_tokens')
        .select('revoked_at')
        .where('token_hash', '=', hashSecret(tokens.access_token))
        .executeTakeFirstOrThrow();
      assert.equal(row.revoked_at, null);
    });
  });
}
