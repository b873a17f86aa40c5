import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPE_NAMES } from '../../src/oauth/scope-catalogue.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';

const SEED_SCOPES = `openid profile email courses:read courses:write students:read students:write members:read
members:write analytics:read curriculum:read curriculum:write orders:read school:read school:write appearance:read
appearance:write events:read events:write membership_plans:read membership_plans:write coupons:read coupons:write
posts:read posts:write subscriptions:read subscriptions:write digital_products:read digital_products:write
comments:read lecturers:read lecturers:write storage:write forms:read pages:read pages:write account:read
account:write`.split(/\s+/);

for (const dialect of DIALECTS) {
  describe(`discovery documents [${dialect}]`, () => {
    let t: TestApp;
    const issuer = 'http://127.0.0.1:3000';
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    const get = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url} answers 200`);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      return res.json() as Record<string, unknown>;
    };

    it('authorization server metadata names every endpoint, grant and the 38 scopes (RFC 8414)', async () => {
      const m = await get('/.well-known/oauth-authorization-server');
      assert.deepEqual(m, {
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/api/oauth/token`,
        device_authorization_endpoint: `${issuer}/api/oauth/device_authorization`,
        registration_endpoint: `${issuer}/api/oauth/register`,
        userinfo_endpoint: `${issuer}/api/oauth/userinfo`,
        revocation_endpoint: `${issuer}/api/oauth/revoke`,
        introspection_endpoint: `${issuer}/api/oauth/introspect`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        scopes_supported: SEED_SCOPES,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'urn:ietf:params:oauth:grant-type:device_code',
        ],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        introspection_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        authorization_response_iss_parameter_supported: true,
        dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'Ed25519', 'RS256'],
        client_id_metadata_document_supported: true,
        service_documentation: `${issuer}/auth.md`,
        ui_locales_supported: ['en'],
      });
    });

    it('scopes_supported is exactly the seed’s 38 scope names', () => {
      assert.equal(SEED_SCOPES.length, 38);
      assert.deepEqual([...SCOPE_NAMES], SEED_SCOPES);
    });

    it('OpenID configuration agrees with the server metadata and adds the OIDC fields', async () => {
      const as = await get('/.well-known/oauth-authorization-server');
      const oidc = await get('/.well-known/openid-configuration');
      for (const [key, value] of Object.entries(as))
        assert.deepEqual(oidc[key], value, `openid-configuration ${key}`);
      assert.deepEqual(oidc.subject_types_supported, ['public']);
      // OIDC Discovery §3: RS256 must be listed; it is first, the default.
      assert.deepEqual(oidc.id_token_signing_alg_values_supported, ['RS256', 'ES256', 'EdDSA']);
      assert.ok(Array.isArray(oidc.claims_supported) && oidc.claims_supported.includes('sub'));
      assert.equal(oidc.request_uri_parameter_supported, false);
    });

    it('protected resource metadata points at this issuer (RFC 9728)', async () => {
      const pr = await get('/.well-known/oauth-protected-resource');
      assert.deepEqual(pr, {
        resource: issuer,
        resource_name: 'School platform API',
        authorization_servers: [issuer],
        scopes_supported: SEED_SCOPES,
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'Ed25519', 'RS256'],
        dpop_bound_access_tokens_required: false,
        resource_documentation: `${issuer}/auth.md`,
      });
    });

    it('no metadata field of the unsupported agent-authentication extension is published', async () => {
      const text = JSON.stringify(await get('/.well-known/openid-configuration'));
      assert.doesNotMatch(text, /agent|identity_assertion|claim_endpoint/i);
    });

    it('the issuer is one canonical string without a trailing slash everywhere', async () => {
      for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        assert.equal((await get(url)).issuer, issuer);
      }
      assert.equal((await get('/.well-known/oauth-protected-resource')).resource, issuer);
    });

    it('JWKS serves the public signing key of each algorithm (RS256, ES256 P-256, EdDSA Ed25519) and no private part', async () => {
      const jwks = (await get('/.well-known/jwks.json')) as { keys: Array<Record<string, unknown>> };
      const shapes = jwks.keys.map((k) => [k.alg, k.kty, k.crv ?? null, k.use]);
      assert.deepEqual(shapes.sort(), [
        ['ES256', 'EC', 'P-256', 'sig'],
        ['EdDSA', 'OKP', 'Ed25519', 'sig'],
        ['RS256', 'RSA', null, 'sig'],
      ]);
      for (const key of jwks.keys) {
        assert.equal(typeof key.kid, 'string');
        for (const privatePart of ['d', 'p', 'q', 'dp', 'dq', 'qi'])
          assert.equal(key[privatePart], undefined);
      }
    });

    it('/healthz and /readyz answer when the database is reachable', async () => {
      assert.deepEqual(await get('/healthz'), { status: 'ok' });
      assert.deepEqual(await get('/readyz'), { status: 'ready' });
    });

    it('every endpoint the metadata names is routed', async () => {
      const m = await get('/.well-known/openid-configuration');
      const methods: Record<string, 'GET' | 'POST'> = {
        authorization_endpoint: 'GET',
        token_endpoint: 'POST',
        device_authorization_endpoint: 'POST',
        registration_endpoint: 'POST',
        userinfo_endpoint: 'GET',
        revocation_endpoint: 'POST',
        introspection_endpoint: 'POST',
        jwks_uri: 'GET',
      };
      const named = Object.keys(m).filter((k) => k.endsWith('_endpoint') || k === 'jwks_uri');
      assert.deepEqual(named.sort(), Object.keys(methods).sort(), 'every named endpoint is checked');
      for (const key of named) {
        const url = String(m[key]);
        assert.ok(url.startsWith(issuer), `${key} is on this origin`);
        const res = await t.app.inject({ method: methods[key]!, url: url.slice(issuer.length) });
        assert.notEqual(res.statusCode, 404, `${key} ${url} is routed`);
        assert.ok(res.statusCode < 500, `${key} answers without a server error`);
      }
    });

    it('an unknown route answers a JSON 404', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/no/such/thing' });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error, 'not_found');
    });
  });
}
