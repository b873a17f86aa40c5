/**
 * The device authorization grant (RFC 8628) with a person in a real browser: the "device" is a
 * plain HTTP client in the test, the person another browser context that opens verification_uri,
 * types the code (lower case, a space for the dash: forgiven), signs in, sees the code and the
 * §5.4 warning, and chooses Allow or Deny; the device's poll then gets tokens or access_denied.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { createPerson, type Person } from '../helpers/flow.js';
import { register } from '../helpers/oauth.js';

interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
}

describe('device authorization grant with a person in a real browser (RFC 8628 §3.3)', {
  skip: CHROMIUM ? false : 'SCHOOLAUTH_TEST_CHROMIUM is not set',
}, () => {
  let t: TestApp;
  let browser: Browser;
  let person: Person;
  let clientId: string;
  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
    browser = await launchChromium();
    person = await createPerson(t.ctx.store);
    clientId = (
      await register(t, {
        client_name: 'Terminal Tool',
        grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
      })
    ).client_id;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const post = (path: string, form: Record<string, string>) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  /** The device: asks for a code, as a CLI would. */
  const start = async () =>
    (await (
      await post('/api/oauth/device_authorization', { client_id: clientId, scope: 'openid account:read' })
    ).json()) as DeviceStart;
  const poll = async (deviceCode: string) =>
    (await (
      await post('/api/oauth/token', {
        grant_type: DEVICE_CODE_GRANT,
        device_code: deviceCode,
        client_id: clientId,
      })
    ).json()) as { error?: string; access_token?: string; id_token?: string; refresh_token?: string };

  const signIn = async (page: Page) => {
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  /** Back from sign-in the code is filled in; the person confirms it with Continue. */
  const confirmAndSee = async (page: Page, d: DeviceStart) => {
    await page.getByRole('button', { name: 'Continue' }).waitFor();
    assert.equal(await page.getByLabel('Code').inputValue(), d.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const text = await page.locator('body').innerText();
    assert.ok(text.includes('Terminal Tool'), 'the app’s name');
    assert.ok(text.includes(d.user_code), 'the code, to compare with the device');
    assert.match(text, /Only continue if you started this on your own device and the code matches/);
  };

  it('a person types the code in lower case with a space, signs in, sees the code and the warning, allows; the device gets tokens', async () => {
    const d = await start();
    assert.equal((await poll(d.device_code)).error, 'authorization_pending');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(d.verification_uri);
    assert.equal(await page.getByLabel('Code').inputValue(), '');
    await page.getByLabel('Code').fill(d.user_code.toLowerCase().replace('-', ' '));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').waitFor();
    await signIn(page);
    await confirmAndSee(page, d);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('You may continue on your device').waitFor();
    // Past the interval: the first poll after Allow is never slow_down anyway.
    const tokens = await poll(d.device_code);
    assert.ok(tokens.access_token, JSON.stringify(tokens));
    assert.ok(tokens.id_token);
    assert.ok(tokens.refresh_token);
    await context.close();
  });

  it('verification_uri_complete fills the code in but the person still confirms it; Deny gives the device access_denied', async () => {
    const d = await start();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(d.verification_uri_complete);
    // Filled in, not submitted: still the Code form.
    assert.equal(await page.getByLabel('Code').inputValue(), d.user_code);
    assert.equal(await page.getByRole('button', { name: 'Allow' }).count(), 0);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').waitFor();
    await signIn(page);
    await confirmAndSee(page, d);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('The device was refused').waitFor();
    assert.equal((await poll(d.device_code)).error, 'access_denied');
    await context.close();
  });
});
