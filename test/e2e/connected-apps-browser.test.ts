/**
 * Connected apps with many apps in a real browser, at 1280 and 390 px, no script on the page:
 * Sign out in view at the top, apps of one name told apart, details opened by keyboard, one
 * button revoking every app of one name, a search — and axe-clean with all of it on the page.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import {
  authorizeViaPages,
  createPerson,
  Browser as FormBrowser,
  insertTestClient,
  pkcePair,
} from '../helpers/flow.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const result = (await page.evaluate(
    (tags) =>
      (globalThis as unknown as { axe: { run(o: object): Promise<unknown> } }).axe.run({
        runOnly: { type: 'tag', values: tags },
      }),
    AXE_TAGS,
  )) as { violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> };
  return result.violations.map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('Connected apps with many apps in a real browser', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    it(`at ${width} width: Sign out at the top, details by keyboard, Revoke all of one name, search, axe-clean`, async () => {
      const person = await createPerson(t.ctx.store);
      const form = new FormBrowser(t.url);
      const names = [
        'Agent CLI',
        'Agent CLI',
        'Agent CLI',
        'Gradebook',
        'Planner',
        'Quiz Tool',
        'Reader',
        'Sync',
      ];
      for (const name of names) {
        const client = await insertTestClient(t.ctx.db, { name });
        await authorizeViaPages({
          baseUrl: t.url,
          params: {
            client_id: client.id,
            redirect_uri: 'http://127.0.0.1:4711/callback',
            scope: 'openid courses:read courses:write',
            code_challenge: pkcePair().challenge,
          },
          email: person.email,
          password: person.password,
          decision: 'allow',
          browser: form,
        });
      }
      const context = await browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(`${t.url}/account/apps`);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Connected apps' }).waitFor();

      const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
      assert.ok(signOut && signOut.y + signOut.height <= viewport.height, 'Sign out in view at the top');
      assert.equal(await page.getByRole('heading', { level: 2 }).count(), names.length);
      assert.equal(await page.getByRole('searchbox', { name: 'Find an app by name, host or ID' }).count(), 1);
      assert.deepEqual(await axeViolations(page), []);
      const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      assert.ok(scrollWidth <= viewport.width, 'no sideways scrolling');

      const gradebook = page.locator('section.app', { hasText: 'Gradebook' });
      assert.equal(await gradebook.getByText('Redirects to').isVisible(), false, 'details start closed');
      await gradebook.locator('summary').focus();
      await page.keyboard.press('Enter');
      await gradebook.getByText('Redirects to').waitFor();

      await page.getByRole('searchbox').fill('planner');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByText('1 of 8 apps match “planner”').waitFor();
      assert.equal(await page.getByRole('heading', { level: 2 }).count(), 1);
      await page.getByRole('link', { name: 'Show all' }).click();

      await page.getByRole('button', { name: 'Revoke all 3 named “Agent CLI”' }).click();
      await page.getByText('Access was revoked').waitFor();
      assert.equal(await page.locator('section.app', { hasText: 'Agent CLI' }).count(), 0);
      assert.equal(await page.getByRole('heading', { level: 2 }).count(), names.length - 3);
      await context.close();
    });
  }
});
