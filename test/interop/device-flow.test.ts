/**
 * The device authorization grant (RFC 8628) with real client libraries and their defaults:
 * openid-client 6 and oauth4webapi register, start the flow, poll (waiting the server's interval
 * of 5 s), and get tokens once a person approved in the verification pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import { normaliseUserCode, userCodeHash } from '../../src/oauth/device/user-code.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { createPerson, type Person } from '../helpers/flow.js';

const REDIRECT_URI = 'http://127.0.0.1:47002/callback';

for (const dialect of DIALECTS) {
  describe(`interop: the device flow with openid-client 6 and oauth4webapi [${dialect}]`, () => {
    let t: TestApp;
    let person: Person;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      person = await createPerson(t.ctx.store, { name: 'Ada Lovelace' });
    });
    after(() => t.close());

    /** The person's Allow (the pages are tested in test/http/device-pages.test.ts). */
    const approveSoon = (userCode: string) =>
      setTimeout(() => {
        void t.ctx.store.deviceAuthorizations.approve(
          userCodeHash(normaliseUserCode(userCode)!),
          { accountId: person.account.id, scopes: 'openid profile', authTime: t.clock.now() },
          t.clock.now(),
        );
      }, 1000);

    it('openid-client initiates, polls and gets tokens with an ID token', async () => {
      const config = await oidc.dynamicClientRegistration(
        new URL(t.url),
        {
          client_name: 'openid-client device',
          redirect_uris: [REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
          token_endpoint_auth_method: 'none',
        },
        undefined,
        { execute: [oidc.allowInsecureRequests] },
      );
      const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
      assert.equal(started.interval, 5);
      approveSoon(started.user_code);
      const tokens = await oidc.pollDeviceAuthorizationGrant(config, started);
      assert.ok(tokens.access_token);
      assert.ok(tokens.refresh_token);
      assert.equal(tokens.claims()?.sub, person.account.id);
    });

    it('oauth4webapi requests a device code, polls and gets tokens', async () => {
      const issuer = new URL(t.url);
      const as = await oauth
        .discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true })
        .then((r) => oauth.processDiscoveryResponse(issuer, r));
      const reg = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          redirect_uris: [REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
          token_endpoint_auth_method: 'none',
        },
        { [oauth.allowInsecureRequests]: true },
      );
      const client = await oauth.processDynamicClientRegistrationResponse(reg);
      const auth = oauth.None();
      const params = new URLSearchParams({ scope: 'openid profile' });
      const started = await oauth.processDeviceAuthorizationResponse(
        as,
        client,
        await oauth.deviceAuthorizationRequest(as, client, auth, params, {
          [oauth.allowInsecureRequests]: true,
        }),
      );
      approveSoon(started.user_code);
      let interval = started.interval ?? 5;
      for (;;) {
        await new Promise((r) => setTimeout(r, interval * 1000));
        const res = await oauth.deviceCodeGrantRequest(as, client, auth, started.device_code, {
          [oauth.allowInsecureRequests]: true,
        });
        try {
          const result = await oauth.processDeviceCodeResponse(as, client, res);
          assert.ok(result.access_token);
          assert.ok(result.id_token);
          break;
        } catch (error) {
          if (error instanceof oauth.ResponseBodyError && error.error === 'authorization_pending') continue;
          if (error instanceof oauth.ResponseBodyError && error.error === 'slow_down') {
            interval += 5;
            continue;
          }
          throw error;
        }
      }
    });
  });
}
