/**
 * Interop with an agent: the MCP TypeScript SDK's client authorization (`auth()` with an
 * OAuthClientProvider), given only the base URL, discovers the protected-resource and
 * authorization-server metadata, registers itself, sends the person to authorize (the pages are
 * driven over HTTP as a browser would, and once in Chromium), obtains tokens bound to the
 * resource and calls the API. With a `clientMetadataUrl` it identifies itself by its Client ID
 * Metadata Document instead of registering (docs/decisions.md "Client ID Metadata Documents"; MCP 2025-11-25): the document is served by a
 * real https server with a test CA, and the SDK (1.32.2) completes the flow and refreshes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from 'playwright-core';
import { hashSecret } from '../../src/crypto/tokens.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { authorizeViaPages, createPerson } from '../helpers/flow.js';
import { json, type MetadataServer, startMetadataServer, testCa } from '../helpers/metadata-server.js';

const REDIRECT = 'http://127.0.0.1:8976/mcp/callback';

/** An in-memory provider, as an agent keeps it on disk. */
class AgentProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(readonly redirect: string = REDIRECT) {}

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP agent',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return 'agent-state';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

for (const dialect of DIALECTS) {
  describe(`MCP SDK client authorization [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
    });
    after(() => t.close());

    it('from the base URL alone: discover, register, authorize, tokens bound to the resource, API call', async () => {
      const person = await createPerson(t.ctx.store, { now: t.clock.now() });
      const provider = new AgentProvider();
      assert.equal(
        await auth(provider, { serverUrl: t.url, scope: 'openid account:read courses:read' }),
        'REDIRECT',
      );
      assert.ok(provider.client?.client_id, 'registered dynamically');
      const url = provider.authorizationUrl!;
      assert.equal(url.origin + url.pathname, `${t.url}/oauth/authorize`);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(url.searchParams.get('resource'), t.url);

      const redirect = await authorizeViaPages({
        baseUrl: t.url,
        params: Object.fromEntries(url.searchParams),
        email: person.email,
        password: person.password,
        decision: 'allow',
      });
      assert.equal(redirect.searchParams.get('state'), 'agent-state');
      assert.equal(redirect.searchParams.get('iss'), t.url);
      const code = redirect.searchParams.get('code')!;
      assert.equal(await auth(provider, { serverUrl: t.url, authorizationCode: code }), 'AUTHORIZED');

      const tokens = provider.saved!;
      assert.equal(tokens.token_type.toLowerCase(), 'bearer');
      assert.ok(tokens.refresh_token);
      const row = await t.ctx.db
        .selectFrom('access_tokens')
        .select(['resource', 'scopes'])
        .where('token_hash', '=', hashSecret(tokens.access_token))
        .executeTakeFirstOrThrow();
      assert.equal(row.resource, t.url, 'the token is bound to this API (RFC 8707)');

      const res = await fetch(`${t.url}/api/v1/account`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { email: string }).email, person.email);
      const lacking = await fetch(`${t.url}/api/v1/account`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: '{"name":"X"}',
      });
      assert.equal(lacking.status, 403);
      assert.match(String(lacking.headers.get('www-authenticate')), /scope="account:write"/);
    });
  });
}

/** An agent that publishes a Client ID Metadata Document and uses its URL as client_id. */
class MetadataDocumentAgent extends AgentProvider {
  constructor(readonly clientMetadataUrl: string) {
    super();
  }
}

for (const dialect of DIALECTS) {
  describe(`MCP SDK client with a client ID metadata document [${dialect}]`, () => {
    let t: TestApp;
    let docs: MetadataServer;
    before(async () => {
      docs = await startMetadataServer();
      t = await createTestApp(dialect, { listen: true, env: { CLIENT_METADATA_CA_FILE: testCa().caFile } });
    });
    after(async () => {
      await t?.close();
      await docs?.close();
    });

    it('clientMetadataUrl: no registration; authorize, tokens, API call, refresh', async () => {
      const url = docs.url('/mcp/client-metadata.json');
      const provider = new MetadataDocumentAgent(url);
      docs.route('/mcp/client-metadata.json', json({ client_id: url, ...provider.clientMetadata }));
      const person = await createPerson(t.ctx.store, { now: t.clock.now() });
      assert.equal(await auth(provider, { serverUrl: t.url, scope: 'openid account:read' }), 'REDIRECT');
      assert.equal(provider.client?.client_id, url, 'the URL is the client_id');
      const registered = await t.ctx.db
        .selectFrom('clients')
        .select('id')
        .where('kind', '=', 'dynamic')
        .execute();
      assert.equal(registered.length, 0, 'nothing was registered');

      const redirect = await authorizeViaPages({
        baseUrl: t.url,
        params: Object.fromEntries(provider.authorizationUrl!.searchParams),
        email: person.email,
        password: person.password,
        decision: 'allow',
      });
      assert.equal(redirect.searchParams.get('iss'), t.url);
      const code = redirect.searchParams.get('code')!;
      assert.equal(await auth(provider, { serverUrl: t.url, authorizationCode: code }), 'AUTHORIZED');
      const first = provider.saved!;
      const account = await fetch(`${t.url}/api/v1/account`, {
        headers: { authorization: `Bearer ${first.access_token}` },
      });
      assert.equal(account.status, 200);

      // A later run with the stored refresh token: the SDK refreshes instead of asking again.
      assert.equal(await auth(provider, { serverUrl: t.url }), 'AUTHORIZED');
      assert.notEqual(provider.saved!.access_token, first.access_token);
      const again = await fetch(`${t.url}/api/v1/account`, {
        headers: { authorization: `Bearer ${provider.saved!.access_token}` },
      });
      assert.equal(again.status, 200);
      assert.equal(docs.hits('/mcp/client-metadata.json'), 1);
    });
  });
}

describe('MCP SDK client authorization in a real browser', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: Server;
  let codes: URL[];
  let redirectUri: string;

  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
    codes = [];
    // The agent's loopback listener, as an MCP client runs one while the person authorizes.
    callback = createServer((req, res) => {
      codes.push(new URL(req.url ?? '/', redirectUri));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Authorized; you can close this window.');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const address = callback.address();
    redirectUri = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callback`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    callback?.close();
    await t?.close();
  });

  it('with the scopes the resource advertises: sign in and Allow in Chromium, then call the API', async () => {
    const person = await createPerson(t.ctx.store, { now: t.clock.now() });
    const provider = new AgentProvider(redirectUri);
    // No scope given: the SDK asks for the protected resource's scopes_supported (all 38).
    assert.equal(await auth(provider, { serverUrl: t.url }), 'REDIRECT');
    const page = await (await browser.newContext()).newPage();
    await page.goto(provider.authorizationUrl!.href);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 10_000 });
    const arrived = codes.find((url) => url.pathname === '/callback' && url.searchParams.has('code'))!;
    assert.equal(arrived.searchParams.get('iss'), t.url);
    assert.equal(
      await auth(provider, { serverUrl: t.url, authorizationCode: arrived.searchParams.get('code')! }),
      'AUTHORIZED',
    );
    const token = provider.saved!.access_token;
    const account = await fetch(`${t.url}/api/v1/account`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(account.status, 200);
    assert.equal(provider.saved!.scope?.split(' ').length, 38);
  });
});
