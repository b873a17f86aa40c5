import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REVOKE_PATH } from '../../src/pages/connected-apps.page.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, Browser, createPerson, pkcePair, readForm } from '../helpers/flow.js';
import * as oauth from '../helpers/oauth.js';

const REDIRECT = 'http://127.0.0.1:9999/callback';

for (const dialect of DIALECTS) {
  describe(`audit trail [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
    });
    after(() => t.close());

    async function kindsSince(at: number): Promise<string[]> {
      const rows = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('at', '>=', at)
        .orderBy('id')
        .execute();
      for (const row of rows) {
        assert.ok(row.at > 0 && typeof row.detail === 'string');
        assert.doesNotMatch(row.detail, /sa_(at|rt|ac|cs|ss)_/, 'no secret in any detail');
      }
      return rows.map((r) => r.kind);
    }

    it('registration, sign-in failure and success, consent, code issuance and revocation are recorded with actor, client and IP', async () => {
      const start = t.clock.now();
      const registered = await fetch(`${t.url}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'Audited' }),
      });
      assert.equal(registered.status, 201);
      const { client_id: clientId } = (await registered.json()) as { client_id: string };
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const params = {
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: pkcePair().challenge,
      };
      await assert.rejects(
        authorizeViaPages({
          baseUrl: t.url,
          browser,
          params,
          email: person.email,
          password: 'not the password',
        }),
      );
      const redirect = await authorizeViaPages({
        baseUrl: t.url,
        browser,
        params,
        email: person.email,
        password: person.password,
        decision: 'allow',
      });
      assert.ok(redirect.searchParams.get('code'));
      const apps = readForm(await (await browser.get('/account/apps')).text(), REVOKE_PATH);
      assert.equal((await browser.post(apps.action, apps.fields)).status, 303);

      const kinds = await kindsSince(start);
      for (const kind of [
        'client.registered',
        'signin.failure',
        'signin.success',
        'consent.granted',
        'code.issued',
        'grant.revoked',
      ]) {
        assert.ok(kinds.includes(kind), `${kind} in ${kinds.join(', ')}`);
      }
      const consent = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'consent.granted')
        .where('client_id', '=', clientId)
        .executeTakeFirstOrThrow();
      assert.equal(consent.account_id, person.account.id);
      assert.equal(consent.ip, '127.0.0.1');
    });

    it('token issuance, refresh, revocation, code replay and refresh reuse are recorded', async () => {
      const start = t.clock.now();
      const client = await oauth.register(t);
      const person = await oauth.createPerson(t);
      const minted = await oauth.mintCode(t, client, person);
      const issued = await oauth.exchangeCode(t, client, minted);
      assert.equal(issued.statusCode, 200);
      assert.equal((await oauth.exchangeCode(t, client, minted)).statusCode, 400, 'the code replayed');

      const tokens = await oauth.tokensFor(t, client, person);
      const refreshed = await oauth.refresh(t, client, tokens.refresh_token);
      assert.equal(refreshed.statusCode, 200);
      t.clock.advance(t.config.refreshGrace + 1);
      assert.equal((await oauth.refresh(t, client, tokens.refresh_token)).statusCode, 400, 'reused');

      const third = await oauth.tokensFor(t, client, person);
      assert.equal((await oauth.revoke(t, client, third.access_token)).statusCode, 200);

      const kinds = await kindsSince(start);
      for (const kind of [
        'token.issued',
        'code.replayed',
        'token.refreshed',
        'refresh.reused',
        'token.revoked',
      ]) {
        assert.ok(kinds.includes(kind), `${kind} in ${kinds.join(', ')}`);
      }
      const replay = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'code.replayed')
        .where('client_id', '=', client.client_id)
        .executeTakeFirstOrThrow();
      assert.equal(replay.account_id, person.id);
    });
  });
}
