import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { Browser, createPerson, type Person, pageText, readForm, readForms } from '../helpers/flow.js';
import { register } from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`Connected apps after a device approval, RFC 8628 (${dialect})`, () => {
    let t: TestApp;
    let person: Person;
    let clientId: string;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      clientId = (
        await register(t, {
          client_name: 'Terminal Tool',
          grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
        })
      ).client_id;
      person = await createPerson(t.ctx.store);
    });
    after(() => t.close());

    const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${t.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form),
      });

    it('the device app appears in Connected apps, and Revoke ends its access and refresh tokens', async () => {
      const d = (await (
        await post('/api/oauth/device_authorization', { client_id: clientId, scope: 'openid account:read' })
      ).json()) as { device_code: string; user_code: string };
      const browser = new Browser(t.url);
      const toSignIn = await browser.post('/device', { user_code: d.user_code });
      const signInForm = readForm(await (await browser.get(toSignIn.headers.get('location')!)).text());
      await browser.post(signInForm.action, {
        ...signInForm.fields,
        email: person.email,
        password: person.password,
      });
      const consent = await (await browser.post('/device', { user_code: d.user_code })).text();
      const decision = readForm(consent, '/device/decision');
      await browser.post('/device/decision', { ...decision.fields, decision: 'allow' });
      const tokens = (await (
        await post('/api/oauth/token', {
          grant_type: DEVICE_CODE_GRANT,
          device_code: d.device_code,
          client_id: clientId,
        })
      ).json()) as { access_token: string; refresh_token: string };
      assert.ok(tokens.access_token && tokens.refresh_token);
      const userinfo = () =>
        fetch(`${t.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal((await userinfo()).status, 200);

      const apps = await (await browser.get('/account/apps')).text();
      assert.ok(pageText(apps).includes('Terminal Tool'), 'the device app is listed');
      const revoke = readForms(apps).find(
        (f) => f.action === '/account/apps/revoke' && f.fields.client_id === clientId,
      );
      assert.ok(revoke, 'with a Revoke form');
      const revoked = await browser.post(revoke.action, revoke.fields);
      assert.equal(revoked.status, 303);

      assert.equal((await userinfo()).status, 401, 'the access token stops working');
      const refresh = await post('/api/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      assert.equal(((await refresh.json()) as { error: string }).error, 'invalid_grant');
      assert.ok(!pageText(await (await browser.get('/account/apps')).text()).includes('Terminal Tool'));
    });
  });
}
