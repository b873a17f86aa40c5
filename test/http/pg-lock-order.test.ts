/**
 * The lock order of every write to a grant's rows on PostgreSQL, checked on the server itself
 * (docs/security.md "Lock order"): the grant's row first, then the code or token. A test
 * transaction holds the grant's row; the request waits for it, and while it waits, the row it is
 * about to spend (refresh token, code, access token) must still be free: a request that had
 * locked that row before the grant's would be one half of the deadlock a revocation (grant, then
 * access tokens, then refresh tokens) closes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { hashSecret } from '../../src/crypto/tokens.js';
import type { Account, Database } from '../../src/storage/schema.js';
import { PG_URL, type TestApp } from '../helpers/app.js';
import { holdTransaction } from '../helpers/hold.js';
import {
  exchangeCode,
  mintCode,
  oauthSuite,
  type RegisteredClient,
  refresh,
  revoke,
  tokensFor,
} from '../helpers/oauth.js';

type Table = 'refresh_tokens' | 'access_tokens' | 'authorization_codes';

describe('grant row first in every write to a grant [postgres]', {
  skip: PG_URL ? false : 'no PostgreSQL',
}, () => {
  let t: TestApp;
  let conf: RegisteredClient;
  let person: Account;
  before(async () => {
    ({ t, conf, person } = await oauthSuite('postgres'));
  });
  after(() => t?.close());

  /** Waits until a backend waits on a lock held by the backend `holder`. */
  async function untilBlockedBy(holder: number): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const blocked = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where ${holder}::int = any(pg_blocking_pids(pid))`.execute(t.ctx.db);
      if (blocked.rows[0]!.n > 0) return;
      await sleep(10);
    }
    assert.fail('the request never waited on the grant row');
  }

  /** Whether the row is free of other transactions' locks now (FOR NO KEY UPDATE NOWAIT). */
  async function rowIsFree(table: Table, key: string): Promise<boolean> {
    const column = table === 'authorization_codes' ? 'code_hash' : 'token_hash';
    try {
      await t.ctx.db
        .transaction()
        .execute((trx) =>
          sql`select 1 from ${sql.table(table)} where ${sql.ref(column)} = ${key} for no key update nowait`.execute(
            trx,
          ),
        );
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false;
      throw error;
    }
  }

  /**
   * Holds the grant's row, starts the request, and once it waits on the grant answers whether the
   * row it spends was still free; then lets both go and answers the request's answer too.
   */
  async function whileGrantHeld(
    grantId: string,
    spends: { table: Table; key: string },
    request: () => Promise<{ statusCode: number; body: string }>,
  ) {
    let holder = 0;
    const held = await holdTransaction(t.ctx.db as Kysely<Database>, async (trx) => {
      holder = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
      await sql`select 1 from grants where id = ${grantId} for no key update`.execute(trx);
    });
    while (holder === 0) await sleep(5);
    const answer = request();
    await untilBlockedBy(holder);
    const free = await rowIsFree(spends.table, spends.key);
    await held.release();
    return { free, answer: await answer };
  }

  it('a refresh waits on the grant before it locks the refresh token it rotates', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid'] });
    const first = await exchangeCode(t, conf, minted);
    const { refresh_token } = first.json() as { refresh_token: string };
    const { free, answer } = await whileGrantHeld(
      minted.grantId,
      { table: 'refresh_tokens', key: hashSecret(refresh_token) },
      () => refresh(t, conf, refresh_token),
    );
    assert.equal(free, true, 'the refresh token was locked before the grant');
    assert.equal(answer.statusCode, 200, answer.body);
  });

  it('a code exchange waits on the grant before it locks the code it spends', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid'] });
    const { free, answer } = await whileGrantHeld(
      minted.grantId,
      { table: 'authorization_codes', key: hashSecret(minted.code) },
      () => exchangeCode(t, conf, minted),
    );
    assert.equal(free, true, 'the code was locked before the grant');
    assert.equal(answer.statusCode, 200, answer.body);
  });

  it('revoking an access token waits on its grant before it locks the token', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid'] });
    const { access_token } = (await exchangeCode(t, conf, minted)).json() as { access_token: string };
    const { free, answer } = await whileGrantHeld(
      minted.grantId,
      { table: 'access_tokens', key: hashSecret(access_token) },
      () => revoke(t, conf, access_token),
    );
    assert.equal(free, true, 'the access token was locked before the grant');
    assert.equal(answer.statusCode, 200, answer.body);
    const row = await t.ctx.db
      .selectFrom('access_tokens')
      .select('revoked_at')
      .where('token_hash', '=', hashSecret(access_token))
      .executeTakeFirstOrThrow();
    assert.notEqual(row.revoked_at, null);
  });

  it('revoking a refresh token waits on its grant before it locks any of its tokens', async () => {
    const tokens = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const grant = await t.ctx.db
      .selectFrom('refresh_tokens')
      .select('grant_id')
      .where('token_hash', '=', hashSecret(tokens.refresh_token))
      .executeTakeFirstOrThrow();
    const { free, answer } = await whileGrantHeld(
      grant.grant_id,
      { table: 'access_tokens', key: hashSecret(tokens.access_token) },
      () => revoke(t, conf, tokens.refresh_token, { token_type_hint: 'refresh_token' }),
    );
    assert.equal(free, true, 'the access token was locked before the grant');
    assert.equal(answer.statusCode, 200, answer.body);
  });
});
