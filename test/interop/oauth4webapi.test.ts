/**
 * oauth4webapi 3 runs the whole flow against a listening server, for a public and a confidential
 * client: RFC 8414 and RFC 9728 discovery, dynamic registration, PKCE authorization through the
 * pages, code exchange with its own `iss` (RFC 9207), ID token claim and signature validation,
 * UserInfo, refresh, introspection and revocation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, createPerson, type Person } from '../helpers/flow.js';

const REDIRECT_URI = 'http://[::1]:47002/cb';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

for (const dialect of DIALECTS) {
  describe(`interop: oauth4webapi 3 [${dialect}]`, () => {
    let t: TestApp;
    let person: Person;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      person = await createPerson(t.ctx.store);
    });
    after(() => t.close());

    for (const kind of ['public', 'confidential'] as const) {
      it(`a ${kind} client runs discovery → registration → PKCE → exchange → userinfo → refresh → introspection → revocation`, async () => {
        const issuer = new URL(t.url);
        const as = await oauth.processDiscoveryResponse(
          issuer,
          await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
        );
        const resource = await oauth.processResourceDiscoveryResponse(
          issuer,
          await oauth.resourceDiscoveryRequest(issuer, insecure),
        );
        assert.deepEqual(resource.authorization_servers, [as.issuer]);

        const client = await oauth.processDynamicClientRegistrationResponse(
          await oauth.dynamicClientRegistrationRequest(
            as,
            {
              client_name: `oauth4webapi ${kind}`,
              redirect_uris: [REDIRECT_URI],
              token_endpoint_auth_method: kind === 'public' ? 'none' : 'client_secret_post',
            },
            insecure,
          ),
        );
        const auth = kind === 'public' ? oauth.None() : oauth.ClientSecretPost(String(client.client_secret));

        const verifier = oauth.generateRandomCodeVerifier();
        const state = oauth.generateRandomState();
        const nonce = oauth.generateRandomNonce();
        const callback = await authorizeViaPages({
          baseUrl: t.url,
          params: {
            client_id: client.client_id,
            redirect_uri: REDIRECT_URI,
            scope: 'openid profile courses:read',
            code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
            state,
            nonce,
            resource: t.url,
          },
          email: person.email,
          password: person.password,
          decision: 'allow',
        });
        const params = oauth.validateAuthResponse(as, client, callback, state);

        const codeResponse = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          REDIRECT_URI,
          verifier,
          { ...insecure, additionalParameters: { resource: t.url } },
        );
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse, {
          expectedNonce: nonce,
          requireIdToken: true,
        });
        await oauth.validateApplicationLevelSignature(as, codeResponse, insecure);
        const claims = oauth.getValidatedIdTokenClaims(tokens)!;
        assert.equal(claims.sub, person.account.id);
        assert.equal(claims.azp, client.client_id);

        const userinfo = await oauth.processUserInfoResponse(
          as,
          client,
          claims.sub,
          await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
        );
        assert.equal(userinfo.sub, person.account.id);
        assert.equal(userinfo.email, undefined, 'no email scope, no email claim');

        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
        );
        assert.equal(refreshed.scope, 'openid profile courses:read');

        const introspection = await oauth.processIntrospectionResponse(
          as,
          client,
          await oauth.introspectionRequest(as, client, auth, refreshed.refresh_token!, insecure),
        );
        assert.equal(introspection.active, true);
        assert.equal(introspection.token_type, 'refresh_token');
        assert.equal(introspection.aud, t.url);

        await oauth.processRevocationResponse(
          await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, insecure),
        );
        const after = await oauth.processIntrospectionResponse(
          as,
          client,
          await oauth.introspectionRequest(as, client, auth, refreshed.access_token, insecure),
        );
        assert.equal(after.active, false);
      });
    }
  });
}
