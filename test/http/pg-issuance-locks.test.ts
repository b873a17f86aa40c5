/**
 * The token endpoint's one write statement on PostgreSQL (src/storage/issuance-statements.repository.ts)
 * against a concurrent revocation of the grant: the statement touches the grant only while
 * `revoked_at IS NULL`, with the grant row's lock, and writes every token from what that touch
 * returns. A revocation that holds the grant row when the exchange (or refresh) reaches it makes
 * the exchange wait, then see the revocation and write no token: the one answer for an unusable
 * code (or refresh token), and the code is spent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { hashSecret } from '../../src/crypto/tokens.js';
import type { Account } from '../../src/storage/schema.js';
import { PG_URL, type TestApp } from '../helpers/app.js';
import { holdTransaction } from '../helpers/hold.js';
import {
  exchangeCode,
  mintCode,
  oauthSuite,
  type RegisteredClient,
  refresh,
  tokensFor,
} from '../helpers/oauth.js';

describe('one write statement under a concurrent grant revocation [postgres]', {
  skip: PG_URL ? false : 'no PostgreSQL',
}, () => {
  let t: TestApp;
  let conf: RegisteredClient;
  let person: Account;
  before(async () => {
    ({ t, conf, person } = await oauthSuite('postgres'));
  });
  after(() => t?.close());

  /** Waits until a statement of this test's schema waits on a row lock (the grant's). */
  async function untilWaitingOnLock(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and query ilike '%update%grants%'`.execute(t.ctx.db);
      if (waiting.rows[0]!.n > 0) return;
      await sleep(10);
    }
    assert.fail('the token request never waited on the grant row');
  }

  async function revokingWhile(
    grantId: string,
    request: () => Promise<{ statusCode: number; body: string }>,
  ) {
    const held = await holdTransaction(t.ctx.db, (trx) =>
      trx.updateTable('grants').set({ revoked_at: t.ctx.now() }).where('id', '=', grantId).execute(),
    );
    const answer = request();
    await untilWaitingOnLock();
    await held.release();
    return answer;
  }

  const tokensOf = (grantId: string) =>
    t.ctx.db.selectFrom('access_tokens').select('token_hash').where('grant_id', '=', grantId).execute();

  it('a code exchange waiting on a grant being revoked writes no token and spends the code', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid'] });
    const res = await revokingWhile(minted.grantId, () => exchangeCode(t, conf, minted));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal((JSON.parse(res.body) as { error: string }).error, 'invalid_grant');
    assert.deepEqual(await tokensOf(minted.grantId), []);
    const code = await t.ctx.db
      .selectFrom('authorization_codes')
      .select('consumed_at')
      .where('code_hash', '=', hashSecret(minted.code))
      .executeTakeFirstOrThrow();
    assert.notEqual(code.consumed_at, null);
  });

  it('a refresh waiting on a grant being revoked writes no token', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid'] });
    const first = await exchangeCode(t, conf, minted);
    assert.equal(first.statusCode, 200, first.body);
    const { refresh_token } = first.json() as { refresh_token: string };
    const before = (await tokensOf(minted.grantId)).length;
    const res = await revokingWhile(minted.grantId, () => refresh(t, conf, refresh_token));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal((JSON.parse(res.body) as { error: string }).error, 'invalid_grant');
    assert.equal((await tokensOf(minted.grantId)).length, before);
    const refreshTokens = await t.ctx.db
      .selectFrom('refresh_tokens')
      .select('token_hash')
      .where('grant_id', '=', minted.grantId)
      .execute();
    assert.equal(refreshTokens.length, 1, 'no successor refresh token');
  });

  it("without a revocation the same requests issue tokens (the lock wait is the revocation's)", async () => {
    const tokens = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const res = await refresh(t, conf, tokens.refresh_token);
    assert.equal(res.statusCode, 200, res.body);
  });
});
