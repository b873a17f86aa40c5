import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { createPerson, type RegisteredClient, register, revoke, tokensFor } from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`UserInfo (OIDC Core §5.3) [${dialect}]`, () => {
    let t: TestApp;
    let client: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    const metadata = 'resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource"';
    before(async () => {
      t = await createTestApp(dialect);
      client = await register(t);
      person = await createPerson(t, 'Grace Hopper');
    });
    after(() => t.close());

    const userinfo = (token: string | undefined, method: 'GET' | 'POST' = 'GET') =>
      t.app.inject({
        method,
        url: '/api/oauth/userinfo',
        headers: token === undefined ? {} : { authorization: token },
      });

    it('answers sub and the profile and email claims when those scopes were granted', async () => {
      const { access_token } = await tokensFor(t, client, person, { scopes: ['openid', 'profile', 'email'] });
      for (const method of ['GET', 'POST'] as const) {
        const res = await userinfo(`Bearer ${access_token}`, method);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.deepEqual(res.json(), {
          sub: person.id,
          name: 'Grace Hopper',
          preferred_username: person.email.split('@')[0],
          locale: 'en',
          updated_at: person.updated_at,
          email: person.email,
          email_verified: false,
        });
      }
    });

    it('answers only sub with openid alone; profile and email claims follow their scopes', async () => {
      const only = await tokensFor(t, client, person, { scopes: ['openid'] });
      assert.deepEqual((await userinfo(`Bearer ${only.access_token}`)).json(), { sub: person.id });
      const email = await tokensFor(t, client, person, { scopes: ['openid', 'email'] });
      assert.deepEqual(Object.keys((await userinfo(`Bearer ${email.access_token}`)).json()).sort(), [
        'email',
        'email_verified',
        'sub',
      ]);
    });

    it('without a token: 401, a challenge with resource_metadata and no error code, and a JSON error', async () => {
      const res = await userinfo(undefined);
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['www-authenticate'], `Bearer ${metadata}`);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.json().error, 'invalid_token');
    });

    const invalid: ReadonlyArray<[string, string]> = [
      ['an unknown token', 'Bearer sa_at_unknown'],
      ['a malformed header', 'Bearer'],
      ['a non-Bearer scheme', 'Basic YTpi'],
      ['two tokens', 'Bearer a b'],
    ];
    for (const [name, header] of invalid) {
      it(`${name}: 401 invalid_token with the challenge`, async () => {
        const res = await userinfo(header);
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().error, 'invalid_token');
        const challenge = String(res.headers['www-authenticate']);
        assert.match(challenge, /^Bearer error="invalid_token"/);
        assert.ok(challenge.includes(metadata));
      });
    }

    it('a token without openid: 403 insufficient_scope naming openid', async () => {
      const { access_token } = await tokensFor(t, client, person, { scopes: ['courses:read'] });
      const res = await userinfo(`Bearer ${access_token}`);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error, 'insufficient_scope');
      assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope".*scope="openid"/);
    });

    it('an expired or revoked token: 401 invalid_token', async () => {
      const revoked = await tokensFor(t, client, person);
      await revoke(t, client, revoked.access_token);
      assert.equal((await userinfo(`Bearer ${revoked.access_token}`)).statusCode, 401);
      const expiring = await tokensFor(t, client, person);
      t.clock.advance(t.config.accessTokenTtl);
      assert.equal((await userinfo(`Bearer ${expiring.access_token}`)).statusCode, 401);
    });

    it('lists openid, profile and email in its OpenAPI security', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      for (const method of ['get', 'post']) {
        const op = doc.paths['/api/oauth/userinfo'][method];
        type Requirement = { oauth2?: string[]; dpop?: string[] };
        const scopes = new Set(op.security.flatMap((s: Requirement) => s.oauth2 ?? []));
        assert.deepEqual([...scopes].sort(), ['email', 'openid', 'profile']);
        // A DPoP-bound token (RFC 9449 §7) is the other way to present one.
        assert.ok(op.security.every((s: Requirement) => (s.oauth2 ?? s.dpop)!.includes('openid')));
      }
    });
  });
}
