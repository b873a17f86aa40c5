/**
 * DPoP (RFC 9449) with the two JavaScript libraries that send proofs out of the box, against a
 * listening server: oauth4webapi 3 (its DPoP handle, `dpop_jkt` code binding, a protected GET
 * and UserInfo with `ath`, a refresh with the bound refresh token, retrying on `use_dpop_nonce`),
 * and openid-client 6 (its DPoP handle, which retries on the nonce by itself), with server nonces
 * off and on (DPOP_NONCES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, createPerson, type Person } from '../helpers/flow.js';

const REDIRECT_URI = 'http://127.0.0.1:47003/callback';
const SCOPE = 'openid profile account:read';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** oauth4webapi leaves the nonce retry to the caller: once, as its documentation shows. */
async function withNonceRetry<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return request();
  }
}

for (const dialect of DIALECTS) {
  for (const nonces of ['off', 'on'] as const) {
    describe(`interop: DPoP with oauth4webapi and openid-client, DPOP_NONCES=${nonces} [${dialect}]`, () => {
      let t: TestApp;
      let person: Person;
      before(async () => {
        t = await createTestApp(dialect, { listen: true, env: { DPOP_NONCES: nonces } });
        person = await createPerson(t.ctx.store);
      });
      after(() => t.close());

      it('oauth4webapi: dpop_jkt code, DPoP exchange, protected GET and UserInfo with the proof, bound refresh', async () => {
        const issuer = new URL(t.url);
        const as = await oauth.processDiscoveryResponse(
          issuer,
          await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
        );
        assert.deepEqual(as.dpop_signing_alg_values_supported, ['ES256', 'EdDSA', 'Ed25519', 'RS256']);
        const client = await oauth.processDynamicClientRegistrationResponse(
          await oauth.dynamicClientRegistrationRequest(
            as,
            {
              client_name: 'oauth4webapi DPoP',
              redirect_uris: [REDIRECT_URI],
              token_endpoint_auth_method: 'none',
              dpop_bound_access_tokens: true,
            },
            insecure,
          ),
        );
        const keyPair = await oauth.generateKeyPair('ES256');
        const DPoP = oauth.DPoP(client as oauth.Client, keyPair);
        const verifier = oauth.generateRandomCodeVerifier();
        const callback = await authorizeViaPages({
          baseUrl: t.url,
          params: {
            client_id: client.client_id,
            redirect_uri: REDIRECT_URI,
            scope: SCOPE,
            code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
            dpop_jkt: await DPoP.calculateThumbprint(),
          },
          email: person.email,
          password: person.password,
          decision: 'allow',
        });
        const params = oauth.validateAuthResponse(as, client, callback);
        const tokens = await withNonceRetry(async () =>
          oauth.processAuthorizationCodeResponse(
            as,
            client,
            await oauth.authorizationCodeGrantRequest(
              as,
              client,
              oauth.None(),
              params,
              REDIRECT_URI,
              verifier,
              {
                DPoP,
                ...insecure,
              },
            ),
          ),
        );
        assert.equal(tokens.token_type, 'dpop');

        const account = await withNonceRetry(() =>
          oauth.protectedResourceRequest(
            tokens.access_token,
            'GET',
            new URL('/api/v1/account', t.url),
            undefined,
            undefined,
            { DPoP, ...insecure },
          ),
        );
        assert.equal(account.status, 200);
        const sub = oauth.getValidatedIdTokenClaims(tokens)!.sub;
        const userinfo = await withNonceRetry(async () =>
          oauth.processUserInfoResponse(
            as,
            client,
            sub,
            await oauth.userInfoRequest(as, client, tokens.access_token, { DPoP, ...insecure }),
          ),
        );
        assert.equal(userinfo.sub, person.account.id);

        // Without its proof the access token is refused, as a Bearer token.
        const bare = await fetch(new URL('/api/v1/account', t.url), {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        assert.equal(bare.status, 401);
        assert.match(bare.headers.get('www-authenticate') ?? '', /^DPoP algs=/);

        const refreshed = await withNonceRetry(async () =>
          oauth.processRefreshTokenResponse(
            as,
            client,
            await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
              DPoP,
              ...insecure,
            }),
          ),
        );
        assert.equal(refreshed.token_type, 'dpop');
      });

      it('openid-client: its DPoP handle through exchange, UserInfo, a protected GET and refresh', async () => {
        const config = await oidc.dynamicClientRegistration(
          new URL(t.url),
          {
            client_name: 'openid-client DPoP',
            redirect_uris: [REDIRECT_URI],
            token_endpoint_auth_method: 'none',
          },
          undefined,
          { execute: [oidc.allowInsecureRequests] },
        );
        const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('EdDSA'));
        const verifier = oidc.randomPKCECodeVerifier();
        const authorizationUrl = oidc.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT_URI,
          scope: SCOPE,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        });
        const callback = await authorizeViaPages({
          baseUrl: t.url,
          params: Object.fromEntries(authorizationUrl.searchParams),
          email: person.email,
          password: person.password,
          decision: 'allow',
        });
        const tokens = await oidc.authorizationCodeGrant(
          config,
          callback,
          { pkceCodeVerifier: verifier },
          undefined,
          {
            DPoP,
          },
        );
        assert.equal(tokens.token_type.toLowerCase(), 'dpop');
        const sub = tokens.claims()!.sub;
        assert.equal(
          (await oidc.fetchUserInfo(config, tokens.access_token, sub, { DPoP })).sub,
          person.account.id,
        );
        const account = await oidc.fetchProtectedResource(
          config,
          tokens.access_token,
          new URL('/api/v1/account', t.url),
          'GET',
          undefined,
          undefined,
          { DPoP },
        );
        assert.equal(account.status, 200);
        const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
        assert.equal(refreshed.token_type.toLowerCase(), 'dpop');
        // Another key's proof cannot use the bound refresh token.
        const thief = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
        await assert.rejects(
          oidc.refreshTokenGrant(config, refreshed.refresh_token!, undefined, { DPoP: thief }),
          (error: Error & { error?: string }) => {
            assert.equal(error.error, 'invalid_dpop_proof');
            return true;
          },
        );
      });
    });
  }
}
