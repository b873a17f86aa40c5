/**
 * Round trips per request on PostgreSQL (issue 22 item 4, docs/performance.md "PostgreSQL"): a
 * read-only request and a registration are one statement, so one transaction; a token request
 * and a revocation are one transaction of BEGIN, one read, one write, COMMIT; a decision is
 * never made on a read from another transaction than the request's own. Counted through the
 * app's own pool (test/helpers/pg-statements.ts), one request at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { hashSecret } from '../../src/crypto/tokens.js';
import type { Account } from '../../src/storage/schema.js';
import { PG_URL, type TestApp } from '../helpers/app.js';
import { dpopKey, dpopTokensFor, makeProof } from '../helpers/dpop.js';
import {
  exchangeCode,
  introspect,
  mintCode,
  oauthSuite,
  type RegisteredClient,
  refresh,
  registerConfidential,
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
  let pub: RegisteredClient;
  let person: Account;
  before(async () => {
    ({ t, conf, pub, person } = await oauthSuite('postgres'));
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

  it('answers GET /api/v1/account with DPoP in two statements: the proof recorded, then the token with the account and its memberships', async () => {
    const key = await dpopKey();
    const { access_token } = await dpopTokensFor(t, pub, person, key, { scopes: ['account:read'] });
    const proof = await makeProof(key, {
      htm: 'GET',
      htu: `${t.config.issuer}/api/v1/account`,
      accessToken: access_token,
    });
    const count = await counted(() =>
      t.app.inject({
        method: 'GET',
        url: '/api/v1/account',
        headers: { authorization: `DPoP ${access_token}`, dpop: proof },
      }),
    );
    assert.equal(count.statements, 2, describeCount(count));
  });

  it('answers introspection of an access token with one statement: the client and the token together', async () => {
    const { access_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const count = await counted(() => introspect(t, conf, access_token));
    assert.equal(count.statements, 1, describeCount(count));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  /**
   * BEGIN, one read, one write, COMMIT: the client must be read (and the token endpoint's rate
   * limit counted) before anything is written, and the code's checks run on the row read
   * (docs/performance.md "The minimum per scenario").
   */
  function assertReadThenWrite(count: StatementCount): void {
    assert.equal(count.transactions, 1, describeCount(count));
    assert.equal(count.statements, 4, describeCount(count));
    assert.match(count.sql[0]!, /^begin/i, describeCount(count));
    assert.match(count.sql[1]!, /^select/i, describeCount(count));
    assert.match(count.sql[2]!, /^with/i, describeCount(count));
    assert.match(count.sql[3]!, /^commit/i, describeCount(count));
  }

  it('registers a client with one statement: the client and its audit row', async () => {
    let status = 0;
    const count = await countStatements(async () => {
      status = (
        await t.app.inject({
          method: 'POST',
          url: '/api/oauth/register',
          payload: { redirect_uris: ['http://127.0.0.1:8765/callback'], client_name: 'Counted' },
        })
      ).statusCode;
    });
    assert.equal(status, 201);
    assert.equal(count.statements, 1, describeCount(count));
    assert.equal(count.transactions, 1, describeCount(count));
  });

  it('writes a registered client and its audit row together or neither: a failing audit insert leaves no client', async () => {
    const clients = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('clients')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await clients();
    // The audit insert of the one statement fails; NOT VALID: the rows already there stay.
    await sql`alter table audit_events add constraint refuse_registrations check (kind <> 'client.registered') not valid`.execute(
      t.ctx.db,
    );
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: { redirect_uris: ['http://127.0.0.1:8765/callback'], client_name: 'Never stored' },
      });
      assert.equal(res.statusCode, 500, res.body);
    } finally {
      await sql`alter table audit_events drop constraint refuse_registrations`.execute(t.ctx.db);
    }
    assert.equal(await clients(), before);
    const named = await t.ctx.db
      .selectFrom('clients')
      .select('id')
      .where('name', '=', 'Never stored')
      .execute();
    assert.deepEqual(named, []);
  });

  it('exchanges a code (openid, with a refresh token) in one transaction of four round trips', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['openid', 'profile'] });
    const count = await counted(() => exchangeCode(t, conf, minted));
    assertReadThenWrite(count);
  });

  it('exchanges a code without openid in one transaction of four round trips', async () => {
    const minted = await mintCode(t, conf, person, { scopes: ['account:read'] });
    const count = await counted(() => exchangeCode(t, conf, minted));
    assertReadThenWrite(count);
  });

  it('exchanges a code for a client without the refresh_token grant in four round trips', async () => {
    const codeOnly = await registerConfidential(t, { grant_types: ['authorization_code'] });
    const minted = await mintCode(t, codeOnly, person, { scopes: ['openid'] });
    const res = await exchangeCode(t, codeOnly, minted);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((res.json() as { refresh_token?: string }).refresh_token, undefined);
    const again = await mintCode(t, codeOnly, person, { scopes: ['openid'] });
    assertReadThenWrite(await counted(() => exchangeCode(t, codeOnly, again)));
  });

  it('refreshes with rotation in one transaction of four round trips', async () => {
    const { refresh_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const count = await counted(() => refresh(t, conf, refresh_token));
    assertReadThenWrite(count);
  });

  it('revokes an access token in one transaction of four round trips, with the audit row recordAudit writes', async () => {
    const { access_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
    const count = await counted(() => revoke(t, conf, access_token));
    assertReadThenWrite(count);
    const token = await t.ctx.db
      .selectFrom('access_tokens')
      .select(['grant_id', 'revoked_at'])
      .where('token_hash', '=', hashSecret(access_token))
      .executeTakeFirstOrThrow();
    assert.notEqual(token.revoked_at, null);
    const audit = await t.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('kind', '=', 'token.revoked')
      .where('detail', 'like', `%${token.grant_id}%`)
      .executeTakeFirstOrThrow();
    assert.equal(audit.detail, JSON.stringify({ token_type: 'access', grant_id: token.grant_id }));
    assert.equal(audit.account_id, person.id);
    assert.equal(audit.client_id, conf.client_id);
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
