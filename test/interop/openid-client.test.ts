/**
 * openid-client 6 runs the whole flow against a listening server, for a public and a
 * confidential client: discovery, dynamic registration, PKCE authorization through the pages,
 * code exchange with the library's own ID token and `iss` (RFC 9207) validation, UserInfo,
 * refresh, introspection and revocation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, createPerson, type Person } from '../helpers/flow.js';

const REDIRECT_URI = 'http://127.0.0.1:47001/callback';
const SCOPE = 'openid profile email courses:read';

for (const dialect of DIALECTS) {
  describe(`interop: openid-client 6 [${dialect}]`, () => {
    let t: TestApp;
    let person: Person;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      person = await createPerson(t.ctx.store, { name: 'Ada Lovelace' });
    });
    after(() => t.close());

    for (const kind of ['public', 'confidential'] as const) {
      it(`a ${kind} client runs discovery → registration → PKCE → exchange → userinfo → refresh → introspection → revocation`, async () => {
        const config = await oidc.dynamicClientRegistration(
          new URL(t.url),
          {
            client_name: `openid-client ${kind}`,
            redirect_uris: [REDIRECT_URI],
            token_endpoint_auth_method: kind === 'public' ? 'none' : 'client_secret_post',
          },
          undefined,
          { execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] },
        );
        assert.equal(config.serverMetadata().issuer, t.url);
        assert.equal(
          typeof config.clientMetadata().client_secret,
          kind === 'public' ? 'undefined' : 'string',
        );

        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const nonce = oidc.randomNonce();
        const authorizationUrl = oidc.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT_URI,
          scope: SCOPE,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        });
        // Any port of the loopback redirect URI is accepted (RFC 8252 §7.3); keep the registered one.
        const callback = await authorizeViaPages({
          baseUrl: t.url,
          params: Object.fromEntries(authorizationUrl.searchParams),
          email: person.email,
          password: person.password,
          decision: 'allow',
        });
        assert.equal(callback.searchParams.get('iss'), t.url);

        // The library checks state, iss (RFC 9207), PKCE, nonce and the ID token's claims and signature.
        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        assert.ok(claims);
        assert.equal(claims.sub, person.account.id);
        assert.equal(claims.iss, t.url);
        assert.equal(tokens.token_type.toLowerCase(), 'bearer');
        assert.equal(tokens.scope, SCOPE);

        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        assert.equal(userinfo.sub, person.account.id);
        assert.equal(userinfo.name, 'Ada Lovelace');
        assert.equal(userinfo.email, person.email);

        const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
        assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
        assert.equal(refreshed.claims()?.sub, person.account.id);

        const active = await oidc.tokenIntrospection(config, refreshed.access_token);
        assert.equal(active.active, true);
        assert.equal(active.aud, t.url);
        assert.equal(active.client_id, config.clientMetadata().client_id);
        assert.equal(active.token_type, 'Bearer');

        await oidc.tokenRevocation(config, refreshed.refresh_token!);
        assert.equal((await oidc.tokenIntrospection(config, refreshed.access_token)).active, false);
        await assert.rejects(
          oidc.refreshTokenGrant(config, refreshed.refresh_token!),
          (error: Error & { error?: string }) => {
            assert.equal(error.error, 'invalid_grant');
            return true;
          },
        );
      });
    }

    // openid-client checks the ID token's alg against the client's id_token_signed_response_alg
    // (RS256 when unset) and verifies the signature against the server's JWKS.
    for (const alg of ['ES256', 'EdDSA'] as const) {
      it(`a client registered with id_token_signed_response_alg ${alg} gets ID tokens the library verifies`, async () => {
        const config = await oidc.dynamicClientRegistration(
          new URL(t.url),
          {
            client_name: `openid-client ${alg}`,
            redirect_uris: [REDIRECT_URI],
            token_endpoint_auth_method: 'none',
            id_token_signed_response_alg: alg,
          },
          undefined,
          { execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] },
        );
        assert.equal(config.clientMetadata().id_token_signed_response_alg, alg);
        const verifier = oidc.randomPKCECodeVerifier();
        const nonce = oidc.randomNonce();
        const authorizationUrl = oidc.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT_URI,
          scope: 'openid',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          nonce,
        });
        const callback = await authorizeViaPages({
          baseUrl: t.url,
          params: Object.fromEntries(authorizationUrl.searchParams),
          email: person.email,
          password: person.password,
          decision: 'allow',
        });
        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: verifier,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        assert.equal(tokens.claims()?.sub, person.account.id);
        const [header] = tokens.id_token!.split('.');
        assert.equal(JSON.parse(Buffer.from(header!, 'base64url').toString()).alg, alg);
        const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
        assert.equal(refreshed.claims()?.sub, person.account.id);
      });
    }
  });
}
