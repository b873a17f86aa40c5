import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { Browser, createPerson, type Person, pageText, readForm } from '../helpers/flow.js';
import { register } from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`device verification pages, RFC 8628 §3.3 (${dialect})`, () => {
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

    const start = async () => {
      const res = await fetch(`${t.url}/api/oauth/device_authorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, scope: 'openid account:read' }),
      });
      return (await res.json()) as {
        device_code: string;
        user_code: string;
        verification_uri_complete: string;
      };
    };
    const poll = async (deviceCode: string) =>
      (await fetch(`${t.url}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: DEVICE_CODE_GRANT,
          device_code: deviceCode,
          client_id: clientId,
        }),
      }).then((r) => r.json())) as { error?: string; access_token?: string };

    const signIn = async (browser: Browser, location: string) => {
      const page = await (await browser.get(location)).text();
      const form = readForm(page);
      const res = await browser.post(form.action, {
        ...form.fields,
        email: person.email,
        password: person.password,
      });
      assert.equal(res.status, 303);
      return res.headers.get('location')!;
    };

    it('Code and Continue, sign-in, a consent page with the code and the warning, Allow: the device gets tokens', async () => {
      const d = await start();
      const browser = new Browser(t.url);
      const first = await (await browser.get(d.verification_uri_complete)).text();
      assert.match(first, /<label for="user_code">Code<\/label>/);
      assert.match(first, />Continue</);
      assert.ok(first.includes(`value="${d.user_code}"`), 'verification_uri_complete fills the code in');
      // Case and separators forgiven.
      const typed = d.user_code.toLowerCase().replace('-', ' ');
      const toSignIn = await browser.post('/device', { user_code: typed });
      assert.equal(toSignIn.status, 303);
      const back = await signIn(browser, toSignIn.headers.get('location')!);
      const again = await (await browser.get(back)).text();
      assert.ok(
        again.includes(`value="${d.user_code}"`),
        'back from sign-in, the code is filled in to confirm',
      );
      const consent = await (await browser.post('/device', { user_code: d.user_code })).text();
      const text = pageText(consent);
      assert.ok(text.includes('Terminal Tool'));
      assert.ok(text.includes(d.user_code));
      assert.match(text, /Only continue if you started this on your own device and the code matches/);
      assert.match(consent, />Allow</);
      assert.match(consent, />Deny</);
      assert.equal((await poll(d.device_code)).error, 'authorization_pending');
      const form = readForm(consent, '/device/decision');
      const done = await browser.post('/device/decision', { ...form.fields, decision: 'allow' });
      assert.equal(done.status, 200);
      assert.match(pageText(await done.text()), /You may continue on your device/);
      assert.ok((await poll(d.device_code)).access_token);
    });

    it('Deny makes the device get access_denied; a wrong code shows the form again', async () => {
      const d = await start();
      const browser = new Browser(t.url);
      const toSignIn = await browser.post('/device', { user_code: d.user_code });
      await signIn(browser, toSignIn.headers.get('location')!);
      const consent = await (await browser.post('/device', { user_code: d.user_code })).text();
      const form = readForm(consent, '/device/decision');
      await browser.post('/device/decision', { ...form.fields, decision: 'deny' });
      assert.equal((await poll(d.device_code)).error, 'access_denied');
      const wrong = await browser.post('/device', { user_code: 'ZZZZ-ZZZZ' });
      assert.equal(wrong.status, 400);
      assert.match(pageText(await wrong.text()), /not known/);
    });

    it('the decision form refuses a post without the CSRF token', async () => {
      const d = await start();
      const browser = new Browser(t.url);
      const res = await browser.post('/device/decision', { user_code: d.user_code, decision: 'allow' });
      assert.equal(res.status, 403);
      assert.equal((await poll(d.device_code)).error, 'authorization_pending');
    });
  });
}
