/**
 * The authorization pages in a real browser (Chromium through playwright-core): sign in, Allow,
 * Deny, a public client asked again despite remembered consent, prompt=consent, and Connected
 * apps → Revoke. A tiny loopback "client" server receives the redirects, as a CLI or desktop app
 * would.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashSecret } from '../../src/crypto/tokens.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { createPerson, type Person, pkcePair } from '../helpers/flow.js';

interface LoopbackClient {
  readonly server: Server;
  readonly redirectUri: string;
}

async function startLoopbackClient(): Promise<LoopbackClient> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('You can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, redirectUri: `http://127.0.0.1:${port}/callback` };
}

describe('authorization in a real browser', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let browser: Browser;
  let loopback: LoopbackClient;
  let clientId: string;
  let person: Person;

  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
    loopback = await startLoopbackClient();
    const res = await fetch(`${t.url}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Registered without a port: RFC 8252 §7.3, any port matches at authorization time.
      body: JSON.stringify({
        client_name: 'Maths Agent',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
      }),
    });
    assert.equal(res.status, 201);
    clientId = ((await res.json()) as { client_id: string }).client_id;
    person = await createPerson(t.ctx.store);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    loopback?.server.close();
    await t?.close();
  });

  const pkce = pkcePair();
  let tokens: { access_token: string; refresh_token: string };

  const tokenRequest = (form: Record<string, string>) =>
    fetch(`${t.url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, ...form }),
    });

  const authorizeUrl = (extra: Record<string, string> = {}) =>
    `${t.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: loopback.redirectUri,
      scope: 'openid profile courses:read orders:read',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'state-42',
      ...extra,
    })}`;

  /** Waits until the browser has been sent to the loopback client; returns that URL. */
  async function arrivedAtClient(page: Page): Promise<URL> {
    await page.waitForURL((url) => url.href.startsWith(loopback.redirectUri), { timeout: 10_000 });
    return new URL(page.url());
  }

  async function signIn(page: Page, who: Person = person): Promise<void> {
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  let context: BrowserContext;

  it('sign in, then Allow: the client receives code, state and iss', async () => {
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl());
    assert.equal(await page.getByRole('heading', { name: 'Sign in' }).count(), 1);
    await signIn(page);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    assert.match(await page.getByRole('heading', { level: 1 }).innerText(), /Maths Agent/);
    assert.match(await page.locator('main').innerText(), /Self-registered/);
    await page.setViewportSize({ width: 420, height: 900 });
    await page.screenshot({ path: '/tmp/schoolauth-consent.png', fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    const url = await arrivedAtClient(page);
    assert.match(url.searchParams.get('code') ?? '', /^sa_ac_/);
    assert.equal(url.searchParams.get('state'), 'state-42');
    assert.equal(url.searchParams.get('iss'), t.config.issuer);
    const res = await tokenRequest({
      grant_type: 'authorization_code',
      code: url.searchParams.get('code')!,
      redirect_uri: loopback.redirectUri,
      code_verifier: pkce.verifier,
    });
    assert.equal(res.status, 200);
    tokens = (await res.json()) as typeof tokens;
    assert.ok(tokens.access_token && tokens.refresh_token);
  });

  it('a public client is asked again (RFC 8252 §8.6): the page says it was allowed before; Allow sends the code', async () => {
    const page = await context.newPage();
    await page.goto(authorizeUrl({ scope: 'openid courses:read' }));
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Deny' }).count(), 1);
    assert.match(await page.getByRole('status').innerText(), /You allowed this app before/);
    const focused = await page.evaluate('document.activeElement?.tagName');
    assert.notEqual(focused, 'BUTTON', 'no button is focused for the person');
    await page.getByRole('button', { name: 'Allow' }).click();
    const url = await arrivedAtClient(page);
    assert.ok(url.searchParams.get('code'));
  });

  it('prompt=consent shows the consent page again; Deny sends access_denied', async () => {
    const page = await context.newPage();
    await page.goto(authorizeUrl({ prompt: 'consent' }));
    await page.getByRole('button', { name: 'Deny' }).click();
    const url = await arrivedAtClient(page);
    assert.equal(url.searchParams.get('error'), 'access_denied');
    assert.equal(url.searchParams.get('state'), 'state-42');
    assert.equal(url.searchParams.get('iss'), t.config.issuer);
    assert.equal(url.searchParams.get('code'), null);
  });

  it('Deny on a first visit sends access_denied', async () => {
    const fresh = await browser.newContext();
    const page = await fresh.newPage();
    await page.goto(authorizeUrl());
    await signIn(page, await createPerson(t.ctx.store));
    await page.getByRole('button', { name: 'Deny' }).click();
    const url = await arrivedAtClient(page);
    assert.equal(url.searchParams.get('error'), 'access_denied');
    await fresh.close();
  });

  it('Connected apps → Revoke ends the grants and every token under them', async () => {
    const grants = () =>
      t.ctx.db
        .selectFrom('grants')
        .selectAll()
        .where('account_id', '=', person.account.id)
        .where('client_id', '=', clientId)
        .execute();
    const live = await grants();
    assert.ok(live.length >= 2 && live.every((g) => g.revoked_at === null));
    const page = await context.newPage();
    await page.goto(`${t.url}/account/apps`);
    const section = page.locator('section.app', { hasText: 'Maths Agent' });
    await section.locator('summary').click();
    assert.match(await section.innerText(), /Courses\s+See your courses/);
    await section.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Access was revoked').waitFor();
    assert.equal(await page.locator('section.app', { hasText: 'Maths Agent' }).count(), 0);
    assert.ok((await grants()).every((g) => g.revoked_at !== null));
    // The tokens from the first Allow are dead: the refresh token is refused, the access token revoked.
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    assert.equal(refresh.status, 400);
    assert.equal(((await refresh.json()) as { error: string }).error, 'invalid_grant');
    const access = await t.ctx.db
      .selectFrom('access_tokens')
      .select('revoked_at')
      .where('token_hash', '=', hashSecret(tokens.access_token))
      .executeTakeFirstOrThrow();
    assert.notEqual(access.revoked_at, null);
    // The app must ask again.
    await page.goto(authorizeUrl());
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await context.close();
  });
});
