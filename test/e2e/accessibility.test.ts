/**
 * Accessibility of every page, in a real browser (issue 24.8): axe-core (WCAG 2.0–2.2 A and AA,
 * and best practices) over each page at desktop and phone widths, with no violations; the
 * contrast of input borders and the focus ring (WCAG 2.2 1.4.11, which axe does not measure);
 * and where the focus lands after a wrong password.
 *
 * The pages forbid scripts (CSP `default-src 'none'`): the browser context bypasses the CSP so
 * axe can be injected. Nothing else about the pages changes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { SCOPE_NAMES } from '../../src/oauth/scope-catalogue.js';
import { claudeLike } from '../helpers/agent-documents.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPerson, insertTestClient, type Person, pkcePair } from '../helpers/flow.js';
import { json, type MetadataServer, raw, startMetadataServer, testCa } from '../helpers/metadata-server.js';

const CHROMIUM = process.env.SCHOOLAUTH_TEST_CHROMIUM;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly nodes: ReadonlyArray<{ readonly target: readonly string[] }>;
}

/** Runs axe on the page as it is now; fails listing each violation and where it is. */
async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const violations = (await page.evaluate(
    (tags) =>
      (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: unknown[] }> } }).axe.run({
        runOnly: { type: 'tag', values: tags },
      }),
    AXE_TAGS,
  )) as unknown as { violations: AxeViolation[]; passes: unknown[] };
  assert.ok(violations.passes.length > 10, `${what}: axe ran its rules`);
  assert.deepEqual(
    violations.violations.map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    [],
    `${what}: axe violations`,
  );
}

/** WCAG relative luminance contrast of two `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, bl] = rgb
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map(Number) as [number, number, number];
    const channel = (c: number) => {
      const s = c / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(bl);
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe('accessibility of every page (axe-core in Chromium)', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let browser: Browser;
  let dynamicId: string;
  let integrationId: string;
  /** A Client ID Metadata Document client (docs/decisions.md "Client ID Metadata Documents"), and one whose document is refused. */
  let docs: MetadataServer;
  let documentId: string;
  let refusedDocumentId: string;
  /** The self-registered app's loopback callback, where Allow sends the browser. */
  let loopback: Server;
  let callback: string;

  before(async () => {
    docs = await startMetadataServer();
    documentId = docs.url('/oauth/agent.json');
    docs.route('/oauth/agent.json', json(claudeLike(documentId), { 'cache-control': 'max-age=3600' }));
    refusedDocumentId = docs.url('/oauth/moved.json');
    docs.route('/oauth/moved.json', raw(302, '', { location: docs.url('/elsewhere.json') }));
    t = await createTestApp('sqlite', { listen: true, env: { CLIENT_METADATA_CA_FILE: testCa().caFile } });
    loopback = createServer((_req, res) => res.end('You can close this window.'));
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}/callback`;
    dynamicId = (await insertTestClient(t.ctx.db, { name: 'Maths Agent' })).id;
    integrationId = (
      await insertTestClient(t.ctx.db, {
        kind: 'integration',
        name: 'Gradebook',
        redirectUris: ['https://gradebook.example.com/callback'],
      })
    ).id;
    browser = await chromium.launch({
      executablePath: CHROMIUM!,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    loopback?.close();
    await t?.close();
    await docs?.close();
  });

  const authorizeUrl = (clientId: string, redirectUri: string, scope: string) =>
    `${t.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'a11y',
    })}`;

  async function signIn(page: Page, who: Person, password = who.password): Promise<void> {
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
  }

  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    describe(`at ${width} width (${viewport.width}×${viewport.height})`, () => {
      let context: BrowserContext;
      let page: Page;
      let person: Person;
      before(async () => {
        context = await browser.newContext({ viewport, bypassCSP: true });
        page = await context.newPage();
        person = await createPerson(t.ctx.store);
      });
      after(() => context?.close());

      it('home page', async () => {
        const res = await page.goto(`${t.url}/`);
        assert.equal(res?.status(), 200);
        assert.match(res?.headers()['content-type'] ?? '', /^text\/html/);
        await assertAccessible(page, 'home page');
      });

      it('sign-in, empty', async () => {
        await page.goto(`${t.url}/signin`);
        await assertAccessible(page, 'sign-in');
      });

      it('sign-in after a wrong password: accessible, focus on the password field', async () => {
        await signIn(page, person, 'not the password');
        await page.getByRole('alert').waitFor();
        // The browser applies `autofocus` at its next rendering update, not at load (HTML
        // "flush autofocus candidates"), so the test waits for it, with a bound, rather than
        // reading the focus once.
        const focused = await page
          .waitForFunction(`document.activeElement?.id === 'password'`, undefined, { timeout: 5000 })
          .then(() => 'password')
          .catch(() => page.evaluate('document.activeElement?.id || document.activeElement?.tagName'));
        assert.equal(focused, 'password');
        await assertAccessible(page, 'sign-in after a wrong password');
      });

      it('connected apps, with no app yet', async () => {
        await page.goto(`${t.url}/signin?return_to=/account/apps`);
        await signIn(page, person);
        await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
        await assertAccessible(page, 'connected apps (none)');
      });

      it('consent for a self-registered app', async () => {
        await page.goto(authorizeUrl(dynamicId, callback, 'openid profile courses:read'));
        await page.getByRole('button', { name: 'Allow' }).waitFor();
        await assertAccessible(page, 'consent (self-registered)');
      });

      it('consent for a registered integration', async () => {
        await page.goto(
          authorizeUrl(integrationId, 'https://gradebook.example.com/callback', 'openid orders:read'),
        );
        await page.getByRole('button', { name: 'Allow' }).waitFor();
        assert.doesNotMatch(await page.locator('main').innerText(), /\(\s*https\s*\)/);
        await assertAccessible(page, 'consent (integration)');
      });

      it('consent for an app identified by a metadata document', async () => {
        await page.goto(authorizeUrl(documentId, callback, 'openid courses:read'));
        await page.getByRole('button', { name: 'Allow' }).waitFor();
        assert.match(await page.locator('main').innerText(), /Identified by localhost/);
        await assertAccessible(page, 'consent (metadata document)');
      });

      it('error page: a metadata document that was refused', async () => {
        const res = await page.goto(authorizeUrl(refusedDocumentId, callback, 'openid'));
        assert.equal(res?.status(), 400);
        await page.getByRole('heading', { name: 'App could not be identified' }).waitFor();
        await assertAccessible(page, 'error page (metadata document refused)');
      });

      it('consent for all 38 scopes', async () => {
        await page.goto(authorizeUrl(dynamicId, callback, SCOPE_NAMES.join(' ')));
        await page.getByRole('button', { name: 'Allow' }).waitFor();
        await assertAccessible(page, 'consent (38 scopes)');
        // Allow, so Connected apps has an app.
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((url) => url.href.startsWith(callback));
      });

      it('connected apps, with an app', async () => {
        await page.goto(`${t.url}/account/apps`);
        await page.getByRole('button', { name: 'Revoke' }).first().waitFor();
        await assertAccessible(page, 'connected apps (with an app)');
      });

      it('error page: an unknown app', async () => {
        const res = await page.goto(`${t.url}/oauth/authorize?client_id=nope`);
        assert.equal(res?.status(), 400);
        await assertAccessible(page, 'error page (unknown client)');
      });

      it('error page: an expired form', async () => {
        await page.goto(`${t.url}/account/apps`);
        await page.evaluate(
          'document.querySelector("form[action=\'/signout\'] input[name=csrf_token]").value = "stale"',
        );
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'This form has expired' }).waitFor();
        await assertAccessible(page, 'error page (expired form)');
      });

      it('after signing out', async () => {
        await page.goto(`${t.url}/account/apps`);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByText('You have signed out.').waitFor();
        await assertAccessible(page, 'signed out');
      });
    });
  }

  it('input borders and the focus ring reach 3:1 against their background (WCAG 2.2 1.4.11)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.url}/signin`);
    const style = (selector: string, property: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).${property}`,
      ) as Promise<string>;
    const card = await style('main', 'backgroundColor');
    for (const field of ['email', 'password']) {
      const border = await style(`#${field}`, 'borderTopColor');
      assert.ok(
        contrast(border, card) >= 3,
        `${field} border ${border} on ${card}: ${contrast(border, card)}`,
      );
    }
    for (const name of ['email', 'password', 'BUTTON']) {
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.id || document.activeElement.tagName'), name);
      const ring = {
        color: await style(':focus', 'outlineColor'),
        width: await style(':focus', 'outlineWidth'),
        line: await style(':focus', 'outlineStyle'),
      };
      assert.notEqual(ring.line, 'none', `${name}: a focus ring is drawn`);
      assert.ok(Number.parseFloat(ring.width) >= 2, `${name}: the ring is ${ring.width} wide`);
      assert.ok(
        contrast(ring.color, card) >= 3,
        `${name}: ring ${ring.color} on ${card}: ${contrast(ring.color, card)}`,
      );
    }
    await context.close();
  });
});
