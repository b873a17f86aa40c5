/**
 * Round trips per request on PostgreSQL (issue 22 item 4, docs/performance.md "PostgreSQL"): a
 * read-only request is one statement, so one transaction, and a decision is never made on a
 * read from another transaction than the request's own. Counted through the app's own pool
 * (test/helpers/pg-statements.ts), one request at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Account } from '../../src/storage/schema.js';
import { PG_URL, type TestApp } from '../helpers/app.js';
import {
  exchangeCode,
  introspect,
  mintCode,
  oauthSuite,
  type RegisteredClient,
  refresh,
  revoke,
  tokensFor,
} from '../helpers/oauth.js';
import { countStatements, type StatementCount } from '../helpers/pg-statements.js';

function describeCount(count: StatementCount): string {
  return `${count.transactions} transaction(s), ${count.statements} statement(s):\n${count.sql.join('\n')}`;
}

describe('round trips per request [postgres]', { skip: PG_URL ? false : 'no PostgreSQL' }, () => {
  let t: TestApp;
  let conf: RegisteredClient;
  let person: Account;
  before(async () => {
    ({ t, conf, person } = await oauthSuite('postgres'));
  });
  after(() => t?.close());

  async function counted(request: () => Promise<{ statusCode: number; body: string }>) {
    let status = 0;
    let body = '';
    const count = await countStatements(async () => {
      const res = await request();
      status = res.statusCode;
      body = res.body;
    });
    assert.equal(status, 200, body);
    return count;
  }

  const bearerGet = (url: string, token: string) => () =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('answers userinfo with one statement: the token, its account and its claims in one read', async () => {
    const { access_token } = await tokensFor(t, conf, person, { scopes: ['openid', 'profile', 'email'] });
    const count = await counted(bearerGet('/api/oauth/userinfo', access_token));
    assert.equal(count.statements, 1, describeCount(count));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  it('answers GET /api/v1/account with one statement: the token, the account and its memberships', async () => {
    const { access_token } = await tokensFor(t, conf, person, { scopes: ['account:read'] });
    const count = await counted(bearerGet('/api/v1/account', access_token));
    assert.equal(count.statements, 1, describeCount(count));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  it('answers introspection of an access token with one statement: the client and the token together', async () => {
    const { access_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const count = await counted(() => introspect(t, conf, access_token));
    assert.equal(count.statements, 1, describeCount(count));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  it('exchanges a code in one transaction: client, code, consumption, tokens and audit row', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid', 'profile'] });
    const count = await counted(() => exchangeCode(t, conf, minted));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  it('refreshes with rotation in one transaction', async () => {
    const { refresh_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const count = await counted(() => refresh(t, conf, refresh_token));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  it('revokes in one transaction: the client lookup, the revocation and its audit row', async () => {
    const { access_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const count = await counted(() => revoke(t, conf, access_token));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  it('answers a replayed code in one transaction that keeps the grant revoked', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid'] });
    const first = await exchangeCode(t, conf, minted);
    assert.equal(first.statusCode, 200, first.body);
    let status = 0;
    const count = await countStatements(async () => {
      status = (await exchangeCode(t, conf, minted)).statusCode;
    });
    assert.equal(status, 400);
    assert.equal(count.transactions, 1, describeCount(count));
    // RFC 6749 §4.1.2: the answer committed the revocation: the first exchange's tokens are dead.
    const { access_token } = first.json() as { access_token: string };
    const res = await bearerGet('/api/oauth/userinfo', access_token)();
    assert.equal(res.statusCode, 401, res.body);
  });
});
