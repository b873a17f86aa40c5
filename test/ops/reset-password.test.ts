/**
 * `schoolauth account reset-password` after a suspected compromise: the new password alone would
 * leave an app the attacker connected with working tokens. The reset ends the account's sign-in
 * sessions and revokes every app (grants, access and refresh tokens, remembered consents) unless
 * the operator says `--keep-apps`. Real tokens from the real token endpoint, checked at the real
 * userinfo and token endpoints of a server on the same database the CLI writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findConsent, saveConsent } from '../../src/storage/consents.repository.js';
import type { Account } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, PG_URL, type TestApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { createPerson, type RegisteredClient, refresh, register, tokensFor } from '../helpers/oauth.js';
import { addSession, count } from './fixtures.js';

const NEW_PASSWORD = 'a brand new password\n';

for (const dialect of DIALECTS) {
  describe(`account reset-password ends the account's apps and sessions [${dialect}]`, () => {
    let t: TestApp;
    let url: string;
    let client: RegisteredClient;
    let other: RegisteredClient;
    before(async () => {
      t = await createTestApp(dialect, { sqliteFile: true });
      url =
        dialect === 'postgres'
          ? `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${t.ctx.storage.schema}`
          : t.config.databaseUrl;
      client = await register(t, { client_name: 'Attacker app' });
      other = await register(t, { client_name: 'Gradebook' });
    });
    after(() => t.close());

    const userinfo = (token: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/oauth/userinfo',
        headers: { authorization: `Bearer ${token}` },
      });

    const sessionsOf = async (account: Account) =>
      (await t.ctx.db.selectFrom('sessions').select('id_hash').where('account_id', '=', account.id).execute())
        .length;

    async function connected(account: Account) {
      const attacker = await tokensFor(t, client, account);
      const gradebook = await tokensFor(t, other, account);
      await saveConsent(t.ctx.db, account.id, client.client_id, 'openid', t.ctx.now());
      await addSession(t.ctx.db, account.id, t.ctx.now(), t.ctx.now() + 3600);
      await addSession(t.ctx.db, account.id, t.ctx.now(), t.ctx.now() + 3600);
      assert.equal((await userinfo(attacker.access_token)).statusCode, 200);
      return { attacker, gradebook };
    }

    it('revokes every app of the account: access and refresh tokens stop working, consents are forgotten, sessions end', async () => {
      const person = await createPerson(t);
      const bystander = await createPerson(t, 'Grace Hopper');
      const { attacker, gradebook } = await connected(person);
      const untouched = await tokensFor(t, client, bystander);
      await addSession(t.ctx.db, bystander.id, t.ctx.now(), t.ctx.now() + 3600);

      const r = await cli(
        url,
        ['account', 'reset-password', '--email', person.email, '--password-stdin'],
        NEW_PASSWORD,
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        `password of ${person.email} changed; 2 sign-in sessions ended; 2 apps revoked (2 grants with their tokens, and remembered consents)\n`,
      );

      for (const { access_token } of [attacker, gradebook]) {
        const res = await userinfo(access_token);
        assert.equal(res.statusCode, 401, res.body);
      }
      const refreshed = await refresh(t, client, attacker.refresh_token);
      assert.equal(refreshed.statusCode, 400, refreshed.body);
      assert.equal(refreshed.json().error, 'invalid_grant');
      assert.equal(await findConsent(t.ctx.db, person.id, client.client_id), undefined);
      assert.equal(await sessionsOf(person), 0);

      // Another person's app and session are left alone.
      assert.equal((await userinfo(untouched.access_token)).statusCode, 200);
      assert.equal(await sessionsOf(bystander), 1);

      const audit = await t.ctx.db
        .selectFrom('audit_events')
        .select('detail')
        .where('kind', '=', 'account.password_reset')
        .where('account_id', '=', person.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(audit.detail), {
        sessions_ended: 2,
        apps_revoked: 2,
        grants_revoked: 2,
        kept_apps: false,
      });
    });

    it('--keep-apps keeps the apps: their access and refresh tokens keep working, sessions still end', async () => {
      const person = await createPerson(t);
      const { attacker } = await connected(person);
      const grantsBefore = await count(t.ctx.db, 'grants');

      const r = await cli(
        url,
        ['account', 'reset-password', '--email', person.email, '--password-stdin', '--keep-apps'],
        NEW_PASSWORD,
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        `password of ${person.email} changed; 2 sign-in sessions ended; apps kept (--keep-apps): their grants and tokens still work\n`,
      );
      assert.equal((await userinfo(attacker.access_token)).statusCode, 200);
      const refreshed = await refresh(t, client, attacker.refresh_token);
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      assert.ok(await findConsent(t.ctx.db, person.id, client.client_id));
      assert.equal(await count(t.ctx.db, 'grants'), grantsBefore);
      assert.equal(await sessionsOf(person), 0);
    });

    it('--keep-apps is in the command help', async () => {
      const help = await cli(url, ['account', 'reset-password', '--help']);
      assert.match(help.stdout, /--keep-apps/);
      assert.match(help.stdout, /keep the apps the person let in/);
    });
  });
}
