import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { register } from '../helpers/oauth.js';

// docs/decisions.md "Device authorization grant": polls count against RATE_LIMIT_TOKEN like every
// token request (per proven confidential client, else per address), so one client holding many
// device codes is held by the same ceiling as one polling a single code. The counters are the
// shared window counters of every per-endpoint limit, so one dialect is enough here.
describe('device code polling is rate-limited per client (RFC 8628 §5.2)', () => {
  const LIMIT = 4;
  let t: TestApp;
  let clientId: string;
  before(async () => {
    t = await createTestApp('sqlite', {
      listen: true,
      env: { RATE_LIMITS: 'on', RATE_LIMIT_TOKEN: String(LIMIT) },
    });
    t.clock.freeze();
    clientId = (
      await register(t, {
        client_name: 'Terminal Tool',
        grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
      })
    ).client_id;
  });
  after(() => t.close());

  const post = (path: string, form: Record<string, string>) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });

  it('a client polling many device codes gets 429 with Retry-After once over RATE_LIMIT_TOKEN a minute', async () => {
    // The device authorization requests count too (they are token-endpoint-like requests).
    const codes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await post('/api/oauth/device_authorization', { client_id: clientId, scope: 'openid' });
      assert.equal(res.status, 200);
      codes.push(((await res.json()) as { device_code: string }).device_code);
    }
    const statuses: number[] = [];
    let last: Response | undefined;
    for (const code of [...codes, ...codes]) {
      last = await post('/api/oauth/token', {
        grant_type: DEVICE_CODE_GRANT,
        device_code: code,
        client_id: clientId,
      });
      statuses.push(last.status);
    }
    // Two authorization requests and two polls fill the allowance; the next polls are refused.
    assert.deepEqual(statuses, [400, 400, 429, 429]);
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
    assert.equal(((await last!.json()) as { error: string }).error, 'rate_limited');
    // The next minute's window lets the client poll again.
    t.clock.advance(60);
    const again = await post('/api/oauth/token', {
      grant_type: DEVICE_CODE_GRANT,
      device_code: codes[0]!,
      client_id: clientId,
    });
    assert.equal(((await again.json()) as { error: string }).error, 'authorization_pending');
  });
});
