/**
 * Issue 49 §7 in a real browser: a single-page app served from one loopback origin
 * (http://localhost:<port>) uses the server on another (http://127.0.0.1:<port>) with fetch() —
 * registration, sign-in and consent in the browser, the token exchange, an API GET and the bearer
 * challenge of a refused one — as Chromium enforces CORS. No cookie crosses: a credentialed fetch
 * fails. A page whose origin is not loopback (a name Chromium maps to 127.0.0.1, so every request
 * stays on this machine) is refused.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { createPerson, type Person, pkcePair } from '../helpers/flow.js';

/** A name that is not loopback for CORS, resolved by the browser to this machine. */
const FOREIGN_HOST = 'app.example.test';

/** The app's dev server: a blank page at every path (the test drives its script). */
async function startPageServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Browser app</title><p>Browser app</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

/** fetch() run by the page: status, body and one header, or the TypeError of a CORS refusal. */
type Fetched = { status: number; body: string; header: string | null } | { failed: string };

function pageFetch(
  page: Page,
  url: string,
  init: RequestInit,
  header = 'www-authenticate',
): Promise<Fetched> {
  return page.evaluate(
    async ({ url, init, header }) => {
      try {
        const res = await fetch(url, init);
        return { status: res.status, body: await res.text(), header: res.headers.get(header) };
      } catch (error) {
        return { failed: String(error) };
      }
    },
    { url, init, header },
  );
}

function answered(fetched: Fetched): { status: number; body: string; header: string | null } {
  assert.ok(
    !('failed' in fetched),
    `the browser refused the answer: ${'failed' in fetched ? fetched.failed : ''}`,
  );
  return fetched;
}

describe('a browser app on a loopback dev server', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let browser: Browser;
  let pages: { server: Server; port: number };
  let person: Person;

  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
    pages = await startPageServer();
    person = await createPerson(t.ctx.store);
    browser = await launchChromium([`--host-resolver-rules=MAP ${FOREIGN_HOST} 127.0.0.1`]);
  });
  after(async () => {
    await browser?.close();
    pages?.server.close();
    await t?.close();
  });

  it('registers, signs in, exchanges the code and calls the API from http://localhost:<port>', async () => {
    const appOrigin = `http://localhost:${pages.port}`;
    assert.notEqual(new URL(t.url).origin, appOrigin, 'two origins');
    const redirectUri = `${appOrigin}/callback`;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${appOrigin}/`);

    const registered = answered(
      await pageFetch(page, `${t.url}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Browser App', redirect_uris: [redirectUri] }),
      }),
    );
    assert.equal(registered.status, 201, registered.body);
    const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id;

    const pkce = pkcePair();
    await page.goto(
      `${t.url}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'openid account:read',
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        state: 'spa-1',
      })}`,
    );
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 10_000 });
    const code = new URL(page.url()).searchParams.get('code');
    assert.match(code ?? '', /^sa_ac_/);

    // On the app's own page again: the exchange as a browser app makes it.
    const exchanged = answered(
      await pageFetch(page, `${t.url}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code!,
          redirect_uri: redirectUri,
          code_verifier: pkce.verifier,
          client_id: clientId,
        }).toString(),
      }),
    );
    assert.equal(exchanged.status, 200, exchanged.body);
    const { access_token } = JSON.parse(exchanged.body) as { access_token: string };

    const account = answered(
      await pageFetch(page, `${t.url}/api/v1/account`, {
        headers: { authorization: `Bearer ${access_token}` },
      }),
    );
    assert.equal(account.status, 200, account.body);
    assert.equal((JSON.parse(account.body) as { email: string }).email, person.email);

    const refused = answered(
      await pageFetch(page, `${t.url}/api/v1/account`, { headers: { authorization: 'Bearer sa_at_nope' } }),
    );
    assert.equal(refused.status, 401);
    assert.match(refused.header ?? '', /^Bearer .*error="invalid_token"/, 'the challenge is readable');

    const credentialed = await pageFetch(page, `${t.url}/api/v1/account`, {
      headers: { authorization: `Bearer ${access_token}` },
      credentials: 'include',
    });
    assert.ok('failed' in credentialed, 'a credentialed request is refused: no cookie crosses origins');
    await context.close();
  });

  it('a page whose origin is not loopback cannot read the answers', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`http://${FOREIGN_HOST}:${pages.port}/`);
    const token = await pageFetch(page, `${t.url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=x',
    });
    assert.ok('failed' in token, 'the token answer is kept from the page');
    const register = await pageFetch(page, `${t.url}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
    });
    assert.ok('failed' in register, 'the preflight of a registration is refused');
    await context.close();
  });
});
