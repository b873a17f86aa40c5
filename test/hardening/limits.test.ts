/**
 * Issue 6 §2: every size limit answers a clear JSON error — 413 for a body over its limit, 400
 * naming the parameter for an overlong value, 431 for oversized headers, 414 for an overlong URL
 * (test/http/response-headers.test.ts) — and stores nothing.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  FORM_BODY_LIMIT,
  JSON_BODY_LIMIT,
  MAX_PARAMETER_LENGTH,
  MAX_SCOPE_LENGTH,
} from '../../src/limits.js';
import { parseScope } from '../../src/oauth/scopes.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { createPerson, postForm, REDIRECT_URI, register } from '../helpers/oauth.js';
import { mintAccessToken } from '../helpers/tokens.js';

for (const dialect of DIALECTS) {
  describe(`size limits [${dialect}]`, () => {
    let t: TestApp;
    let clientId: string;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      clientId = (await register(t)).client_id;
    });
    after(() => t.close());

    const countClients = async () => (await t.ctx.db.selectFrom('clients').select('id').execute()).length;

    for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
      it(`${path}: a form body over ${FORM_BODY_LIMIT} bytes answers 413 JSON`, async () => {
        const res = await postForm(t, path, { client_id: clientId, token: 'x'.repeat(FORM_BODY_LIMIT + 1) });
        assert.equal(res.statusCode, 413);
        assert.equal(res.json().error, 'payload_too_large');
        assert.equal(res.headers['cache-control'], 'no-store');
      });

      it(`${path}: a parameter over ${MAX_PARAMETER_LENGTH} characters answers 400 naming it`, async () => {
        const res = await postForm(t, path, {
          client_id: clientId,
          token: 'x'.repeat(MAX_PARAMETER_LENGTH + 1),
        });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().error, 'invalid_request');
        assert.match(res.json().error_description, /parameter "token" is longer than 4096 characters/);
      });
    }

    it(`registration: a JSON body over ${JSON_BODY_LIMIT} bytes answers 413 and registers nothing`, async () => {
      const before = await countClients();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: { redirect_uris: [REDIRECT_URI], client_name: 'x'.repeat(JSON_BODY_LIMIT) },
      });
      assert.equal(res.statusCode, 413);
      assert.equal(await countClients(), before);
    });

    it('registration: more than 10 redirect URIs answers invalid_redirect_uri', async () => {
      const uris = Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${9000 + i}/cb`);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: { redirect_uris: uris },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_redirect_uri');
    });

    it('a NUL character in any parameter never answers 500 (PostgreSQL refuses it in text)', async () => {
      const person = await createPerson(t);
      const token = await mintAccessToken(t, {
        accountId: person.id,
        scopes: ['school:read', 'courses:read'],
      });
      const auth = { authorization: `Bearer ${token}` };
      const answers = [
        await t.app.inject({ method: 'GET', url: '/api/v1/schools/a%00b', headers: auth }),
        await t.app.inject({ method: 'GET', url: '/api/v1/schools/a%00b/courses/c%00d', headers: auth }),
        await postForm(t, '/api/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: 'sa_rt_\u0000',
          client_id: 'a\u0000b',
        }),
        await postForm(t, '/api/oauth/introspect', { token: 'x\u0000', client_id: clientId }),
        await postForm(t, '/api/oauth/revoke', { token: 'x\u0000', client_id: clientId }),
      ];
      for (const res of answers) {
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
        if (res.statusCode >= 400) assert.equal(typeof res.json().error, 'string');
      }
    });

    it('headers over 16 KiB answer 431 with a JSON error (over real HTTP)', async () => {
      const url = new URL(`${t.url}/oauth/authorize`);
      const headers = { cookie: `c=${'s'.repeat(20 * 1024)}` };
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(url, { headers }, (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(status, 431);
      assert.equal(JSON.parse(body).error, 'invalid_request');
    });
  });
}

describe('scope length', () => {
  it(`a scope string over ${MAX_SCOPE_LENGTH} characters is refused before parsing`, () => {
    const result = parseScope('openid '.repeat(400));
    assert.ok('error' in result);
    assert.match(result.error, /longer than 2048 characters/);
  });
});
