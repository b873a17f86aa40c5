import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { postForm } from '../helpers/oauth.js';

/** The three endpoints that read OAuth form posts (config errorStyle 'oauth-form'). */
const ENDPOINTS = [
  ['token', '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: ['a', 'b'] }, 'refresh_token'],
  ['revocation', '/api/oauth/revoke', { token: ['a', 'b'], client_id: 'dyn_x' }, 'token'],
  ['introspection', '/api/oauth/introspect', { token: 'a', token_type_hint: ['a', 'b'] }, 'token_type_hint'],
] as const;

const FORM_HINT = 'send the parameters as an application/x-www-form-urlencoded body';

for (const dialect of DIALECTS) {
  describe(`errors of the OAuth form endpoints [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    for (const [name, url, form, repeated] of ENDPOINTS) {
      it(`${name}: a repeated parameter → 400 invalid_request naming it (RFC 6749 §3.1)`, async () => {
        const res = await postForm(t, url, form);
        assert.equal(res.statusCode, 400);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.deepEqual(res.json(), {
          error: 'invalid_request',
          error_description: `parameter "${repeated}" was sent more than once; send it once (RFC 6749 §3.1)`,
        });
      });

      it(`${name}: a media type without a parser → 400 invalid_request with the form hint, not 415`, async () => {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/xml' },
          payload: '<token>a</token>',
        });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), {
          error: 'invalid_request',
          error_description: `unsupported Content-Type "application/xml"; see /openapi.json for the accepted type; ${FORM_HINT}`,
        });
      });
    }
  });
}
