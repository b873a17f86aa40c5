/**
 * A client identified by its Client ID Metadata Document (docs/decisions.md "Client ID Metadata Documents") in a real browser (Chromium
 * through playwright-core): its document is served by a real https server with a test CA, shaped
 * like Claude Code's (portless localhost and 127.0.0.1 entries). The person signs in and consents
 * on pages that show the document's host; then the code is exchanged, the API called and the token
 * refreshed; Connected apps shows the app by its domain.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { claudeLike } from '../helpers/agent-documents.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { createPerson, type Person, pkcePair } from '../helpers/flow.js';
import { json, type MetadataServer, startMetadataServer, testCa } from '../helpers/metadata-server.js';

describe('a metadata-document client in a real browser', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let docs: MetadataServer;
  let browser: Browser;
  let callback: Server;
  let redirectUri: string;
  let clientId: string;
  let person: Person;

  before(async () => {
    docs = await startMetadataServer();
    clientId = docs.url('/oauth/claude-code-client-metadata');
    docs.route(
      '/oauth/claude-code-client-metadata',
      json(claudeLike(clientId), { 'cache-control': 'max-age=3600' }),
    );
    t = await createTestApp('sqlite', { listen: true, env: { CLIENT_METADATA_CA_FILE: testCa().caFile } });
    person = await createPerson(t.ctx.store);
    // The agent's loopback listener on an ephemeral port; its document lists the portless URI.
    callback = createServer((_req, res) => {
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
    await docs?.close();
  });

  const tokenRequest = (form: Record<string, string>) =>
    fetch(`${t.url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, ...form }),
    });

  it('sign in, consent naming the document host, code, token, API call, refresh, Connected apps', async () => {
    const pkce = pkcePair();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(
      `${t.url}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'openid profile account:read courses:read',
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        state: 'agent-state',
      })}`,
    );
    assert.match(await page.locator('main').innerText(), /to continue to Claude Code \(localhost\)/);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    assert.match(
      await page.getByRole('heading', { level: 1 }).innerText(),
      /Allow Claude Code to use your account\?/,
    );
    assert.equal(await page.locator('p.domain').innerText(), 'Identified by localhost');
    const main = await page.locator('main').innerText();
    assert.match(main, /Metadata document · not verified/);
    assert.match(main, /sent to 127\.0\.0\.1:\d+ — an app running on this computer/);
    await page.setViewportSize({ width: 420, height: 900 });
    await page.screenshot({ path: '/tmp/schoolauth-consent-metadata-document.png', fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 10_000 });
    const arrived = new URL(page.url());
    assert.equal(arrived.searchParams.get('state'), 'agent-state');
    assert.equal(arrived.searchParams.get('iss'), t.config.issuer);

    const exchanged = await tokenRequest({
      grant_type: 'authorization_code',
      code: arrived.searchParams.get('code')!,
      redirect_uri: redirectUri,
      code_verifier: pkce.verifier,
    });
    assert.equal(exchanged.status, 200);
    const tokens = (await exchanged.json()) as {
      access_token: string;
      refresh_token: string;
      id_token: string;
    };
    assert.ok(tokens.id_token);
    const account = await fetch(`${t.url}/api/v1/account`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(account.status, 200);
    assert.equal(((await account.json()) as { email: string }).email, person.email);
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refreshed.status, 200);
    const next = (await refreshed.json()) as { access_token: string };
    const again = await fetch(`${t.url}/api/v1/account`, {
      headers: { authorization: `Bearer ${next.access_token}` },
    });
    assert.equal(again.status, 200);

    await page.goto(`${t.url}/account/apps`);
    const section = page.locator('section.app', { hasText: 'Claude Code' });
    await section.locator('summary').click();
    assert.match(await section.innerText(), /Identified by localhost/);
    assert.match(await section.innerText(), /Redirects to\s+localhost, 127\.0\.0\.1/);
    assert.equal(docs.hits('/oauth/claude-code-client-metadata'), 1, 'one fetch for the whole flow');
    await context.close();
  });
});
