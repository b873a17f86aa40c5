import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import {
  USER_CODE_PER_ADDRESS,
  USER_CODE_PER_BROWSER,
  USER_CODE_WINDOW,
} from '../../src/rate-limit/endpoint-limits.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { Browser, pageText } from '../helpers/flow.js';
import { register } from '../helpers/oauth.js';

// Wrong user codes are counted in the same window counters as every per-endpoint limit (shared
// across PostgreSQL instances by counter-sync, tested with those limits), so one dialect is enough.
describe('wrong user codes are throttled per browser and per address (RFC 8628 §5.1, §5.2)', () => {
  let t: TestApp;
  let clientId: string;
  beforeEach(async () => {
    t = await createTestApp('sqlite', { listen: true, env: { RATE_LIMITS: 'on' } });
    t.clock.freeze();
    clientId = (
      await register(t, {
        client_name: 'Terminal Tool',
        grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
      })
    ).client_id;
  });
  afterEach(() => t.close());

  const userCode = async () => {
    const res = await fetch(`${t.url}/api/oauth/device_authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, scope: 'openid' }),
    });
    return ((await res.json()) as { user_code: string }).user_code;
  };

  it('after the per-browser allowance of wrong codes the page answers 429 with Retry-After and how long to wait, even for a right code', async () => {
    const browser = new Browser(t.url);
    await browser.get('/device');
    for (let i = 0; i < USER_CODE_PER_BROWSER; i++) {
      assert.equal((await browser.post('/device', { user_code: 'ZZZZ-ZZZZ' })).status, 400);
    }
    const right = await userCode();
    const refused = await browser.post('/device', { user_code: right });
    assert.equal(refused.status, 429);
    const wait = Number(refused.headers.get('retry-after'));
    assert.ok(wait > 0 && wait <= USER_CODE_WINDOW, `Retry-After ${wait}`);
    assert.match(pageText(await refused.text()), /Too many wrong codes.*Wait \d+ (minutes?|seconds)/);
    // Another browser on the same address still has its own allowance.
    const other = new Browser(t.url);
    assert.equal((await other.post('/device', { user_code: right })).status, 303);
    // After the window the browser may try again.
    t.clock.advance(wait);
    assert.equal((await browser.post('/device', { user_code: right })).status, 303);
  });

  it('a right code is not counted', async () => {
    const browser = new Browser(t.url);
    const right = await userCode();
    for (let i = 0; i < USER_CODE_PER_BROWSER + 2; i++) {
      assert.equal((await browser.post('/device', { user_code: right })).status, 303);
    }
    for (let i = 0; i < USER_CODE_PER_BROWSER; i++) {
      assert.equal((await browser.post('/device', { user_code: 'ZZZZ-ZZZZ' })).status, 400);
    }
    assert.equal((await browser.post('/device', { user_code: 'ZZZZ-ZZZZ' })).status, 429);
  });

  it('browsers without a cookie of their own are held by the per-address limit', async () => {
    for (let i = 0; i < USER_CODE_PER_ADDRESS; i++) {
      // A fresh cookie jar each time: the attacker drops the verification cookie.
      assert.equal((await new Browser(t.url).post('/device', { user_code: 'ZZZZ-ZZZZ' })).status, 400);
    }
    const res = await new Browser(t.url).post('/device', { user_code: await userCode() });
    assert.equal(res.status, 429);
    assert.ok(res.headers.get('retry-after'));
    // Another address is not held.
    const elsewhere = new Browser(t.url, '127.0.0.2');
    assert.equal((await elsewhere.post('/device', { user_code: 'ZZZZ-ZZZZ' })).status, 400);
  });
});
