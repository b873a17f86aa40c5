/**
 * The consent page's choices in a real browser, at 1280 and 390 px, through its labelled fields
 * and buttons only, no script on the page: a tick box per scope labelled with its plain words,
 * Allow and Deny in view without scrolling for a request of every scope, untick by keyboard,
 * "Read only" in one click, and asking again for more asks only about what is new.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SCOPE_NAMES } from '../../src/oauth/scope-catalogue.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { createPerson, insertTestClient, type Person, pkcePair } from '../helpers/flow.js';

const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

describe('consent choices in a real browser', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let browser: Browser;
  let loopback: Server;
  let callback: string;

  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
    loopback = createServer((_req, res) => res.end('You can close this window.'));
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    loopback?.close();
    await t?.close();
  });

  const authorizeUrl = (clientId: string, scope: string, pkce = pkcePair()) =>
    `${t.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback,
      scope,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'st',
    })}`;

  async function signIn(page: Page, who: Person): Promise<void> {
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Follows the redirect to the loopback client and redeems the code; returns the granted scope. */
  async function grantedScope(page: Page, clientId: string, verifier: string): Promise<string> {
    await page.waitForURL((url) => url.href.startsWith(callback), { timeout: 10_000 });
    const code = new URL(page.url()).searchParams.get('code')!;
    const res = await fetch(`${t.url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: callback,
        code_verifier: verifier,
      }),
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { scope: string }).scope;
  }

  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    describe(`at ${width} width (${viewport.width}×${viewport.height})`, () => {
      it('every scope requested: Allow and Deny in view without scrolling; a box per scope, ticked', async () => {
        const client = await insertTestClient(t.ctx.db, { name: 'Maths Agent' });
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await page.goto(authorizeUrl(client.id, SCOPE_NAMES.join(' ')));
        await signIn(page, await createPerson(t.ctx.store));
        await page.getByRole('button', { name: 'Allow' }).waitFor();
        assert.equal(await page.evaluate('window.scrollY'), 0);
        for (const name of ['Allow', 'Read only', 'Deny']) {
          const box = await page.getByRole('button', { name, exact: true }).boundingBox();
          assert.ok(box, name);
          assert.ok(
            box.y >= 0 && box.y + box.height <= viewport.height,
            `${name} in view: ${JSON.stringify(box)}`,
          );
          assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, `${name} within the width`);
        }
        assert.equal(await page.getByRole('checkbox').count(), SCOPE_NAMES.length);
        assert.equal(await page.getByRole('checkbox', { checked: true }).count(), SCOPE_NAMES.length);
        const write = page.getByRole('checkbox', { name: 'Change your school and its settings' });
        assert.equal(await write.getAttribute('value'), 'school:write');
        assert.equal(await page.getByRole('checkbox', { name: 'Confirm who you are' }).isDisabled(), true);
        const scrollWidth = await page.evaluate('document.documentElement.scrollWidth');
        assert.ok((scrollWidth as number) <= viewport.width, 'no sideways scrolling');
        await context.close();
      });

      it('untick by keyboard, then Allow, with JavaScript off: exactly the ticked scopes are granted', async () => {
        const client = await insertTestClient(t.ctx.db, { name: 'Maths Agent' });
        const context = await browser.newContext({ viewport, javaScriptEnabled: false });
        const page = await context.newPage();
        const pkce = pkcePair();
        await page.goto(authorizeUrl(client.id, 'openid profile courses:read courses:write', pkce));
        await signIn(page, await createPerson(t.ctx.store));
        const box = page.getByRole('checkbox', { name: 'See your name, username and language' });
        await box.focus();
        await page.keyboard.press('Space');
        assert.equal(await box.isChecked(), false);
        await page.getByRole('button', { name: 'Allow' }).click();
        assert.equal(await grantedScope(page, client.id, pkce.verifier), 'openid courses:read courses:write');
        await context.close();
      });

      it('Read only in one click, with JavaScript off, grants the read scopes only', async () => {
        const client = await insertTestClient(t.ctx.db, { name: 'Maths Agent' });
        const context = await browser.newContext({ viewport, javaScriptEnabled: false });
        const page = await context.newPage();
        const pkce = pkcePair();
        await page.goto(authorizeUrl(client.id, 'openid courses:read courses:write school:write', pkce));
        await signIn(page, await createPerson(t.ctx.store));
        await page.getByRole('button', { name: 'Read only' }).click();
        assert.equal(await grantedScope(page, client.id, pkce.verifier), 'openid courses:read');
        await context.close();
      });

      it('asking again for more: what was allowed is listed apart, only the new scope has a box; the grant is the union', async () => {
        const client = await insertTestClient(t.ctx.db, { name: 'Maths Agent' });
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        const first = pkcePair();
        await page.goto(authorizeUrl(client.id, 'openid courses:read', first));
        await signIn(page, await createPerson(t.ctx.store));
        await page.getByRole('button', { name: 'Allow' }).click();
        await grantedScope(page, client.id, first.verifier);
        const again = pkcePair();
        await page.goto(authorizeUrl(client.id, 'openid courses:read courses:write', again));
        await page.getByRole('heading', { name: 'Already allowed' }).waitFor();
        assert.equal(await page.getByRole('checkbox').count(), 1);
        assert.equal(
          await page.getByRole('checkbox', { name: 'Create, change and delete courses' }).isChecked(),
          true,
        );
        await page.getByRole('button', { name: 'Allow' }).click();
        assert.equal(
          await grantedScope(page, client.id, again.verifier),
          'openid courses:read courses:write',
        );
        await context.close();
      });

      it('a request without scope shows the small default: three boxes, none that writes', async () => {
        const client = await insertTestClient(t.ctx.db, { name: 'Maths Agent' });
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        const url = new URL(authorizeUrl(client.id, 'x'));
        url.searchParams.delete('scope');
        await page.goto(url.href);
        await signIn(page, await createPerson(t.ctx.store));
        await page.getByRole('button', { name: 'Allow' }).waitFor();
        const values = await page
          .getByRole('checkbox')
          .evaluateAll((boxes) => boxes.map((b) => (b as unknown as { value: string }).value));
        assert.deepEqual(values, ['on', 'profile', 'account:read']);
        assert.equal(await page.getByRole('button', { name: 'Read only' }).count(), 0);
        await context.close();
      });

      it('the privacy policy of an integration is a link with its host; of a self-registered app, plain text', async () => {
        const pages = { policy_uri: 'https://gradebook.example.com/privacy' };
        const integration = await insertTestClient(t.ctx.db, {
          kind: 'integration',
          name: 'Gradebook',
          redirectUris: [callback],
          metadata: pages,
        });
        const dynamic = await insertTestClient(t.ctx.db, { name: 'Maths Agent', metadata: pages });
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await page.goto(authorizeUrl(integration.id, 'openid'));
        await signIn(page, await createPerson(t.ctx.store));
        const link = page.getByRole('link', { name: 'Privacy policy' });
        assert.equal(await link.getAttribute('href'), pages.policy_uri);
        assert.ok(await link.isVisible());
        await page.goto(authorizeUrl(dynamic.id, 'openid'));
        await page.getByText('Privacy policy: gradebook.example.com').waitFor();
        assert.equal(await page.getByRole('link', { name: 'Privacy policy' }).count(), 0);
        assert.equal(await page.locator('img').count(), 0);
        await context.close();
      });
    });
  }
});
