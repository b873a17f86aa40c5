import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { Browser, createPerson, type Person, readForm } from '../helpers/flow.js';
import { register } from '../helpers/oauth.js';

const TOKEN = 'metrics-secret-0123456789';

// prom-client's registry is one per process: the test reads differences between two scrapes.
describe('/metrics counts the device authorization grant (RFC 8628)', () => {
  let t: TestApp;
  let person: Person;
  let clientId: string;
  before(async () => {
    t = await createTestApp('sqlite', { listen: true, env: { METRICS_TOKEN: TOKEN } });
    t.clock.freeze();
    clientId = (
      await register(t, {
        client_name: 'Terminal Tool',
        grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
      })
    ).client_id;
    person = await createPerson(t.ctx.store);
  });
  after(() => t.close());

  const scrape = async (): Promise<Map<string, number>> => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    const samples = new Map<string, number>();
    for (const line of (await res.text()).split('\n')) {
      const match = /^(schoolauth_device_\S+) (\S+)$/.exec(line);
      if (match) samples.set(match[1]!, Number(match[2]));
    }
    return samples;
  };
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  const start = async () =>
    (await (
      await post('/api/oauth/device_authorization', { client_id: clientId, scope: 'openid' })
    ).json()) as {
      device_code: string;
      user_code: string;
    };
  const poll = async (deviceCode: string) =>
    (await (
      await post('/api/oauth/token', {
        grant_type: DEVICE_CODE_GRANT,
        device_code: deviceCode,
        client_id: clientId,
      })
    ).json()) as { error?: string; access_token?: string };
  const decide = async (userCode: string, decision: 'allow' | 'deny') => {
    const browser = new Browser(t.url);
    const toSignIn = await browser.post('/device', { user_code: userCode });
    const signInPage = await (await browser.get(toSignIn.headers.get('location')!)).text();
    const signInForm = readForm(signInPage);
    await browser.post(signInForm.action, {
      ...signInForm.fields,
      email: person.email,
      password: person.password,
    });
    const consent = await (await browser.post('/device', { user_code: userCode })).text();
    const form = readForm(consent, '/device/decision');
    assert.equal((await browser.post('/device/decision', { ...form.fields, decision })).status, 200);
  };

  it('counts device authorizations created, approved and denied, and polls of expired, spent and unknown codes', async () => {
    const before = await scrape();
    const approved = await start();
    const denied = await start();
    const expiring = await start();
    await decide(approved.user_code, 'allow');
    await decide(denied.user_code, 'deny');
    assert.ok((await poll(approved.device_code)).access_token);
    assert.equal((await poll(approved.device_code)).error, 'invalid_grant');
    assert.equal((await poll(denied.device_code)).error, 'access_denied');
    assert.equal((await poll('sa_dc_not-a-real-code')).error, 'invalid_grant');
    t.clock.advance(t.config.deviceCodeTtl + 1);
    assert.equal((await poll(expiring.device_code)).error, 'expired_token');
    const after = await scrape();
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    assert.equal(delta('schoolauth_device_authorizations_total{event="created"}'), 3);
    assert.equal(delta('schoolauth_device_authorizations_total{event="approved"}'), 1);
    assert.equal(delta('schoolauth_device_authorizations_total{event="denied"}'), 1);
    assert.equal(delta('schoolauth_device_polls_refused_total{reason="spent"}'), 1);
    assert.equal(delta('schoolauth_device_polls_refused_total{reason="unknown"}'), 1);
    assert.equal(delta('schoolauth_device_polls_refused_total{reason="expired"}'), 1);
  });
});
