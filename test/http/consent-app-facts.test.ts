/**
 * Apps the person recognises on the consent page (docs/decisions.md "Apps the person
 * recognises"): when the app registered and was last used; its website, privacy policy and terms
 * as links only for a registered integration, as plain text hosts for a self-registered app; never
 * an image the app picked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { Browser, createPerson, insertTestClient, pageText, pkcePair, readForm } from '../helpers/flow.js';

const PAGES = {
  client_uri: 'https://gradebook.example.com/',
  policy_uri: 'https://gradebook.example.com/privacy',
  tos_uri: 'https://legal.example.org/terms',
  logo_uri: 'https://cdn.example.net/logo.png',
};
const REGISTERED = Date.UTC(2031, 4, 6, 7, 8, 9) / 1000;

for (const dialect of DIALECTS) {
  describe(`consent page: apps the person recognises [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
    });
    after(() => t.close());

    async function consentHtml(clientId: string, redirectUri: string): Promise<string> {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const url = `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'openid',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      })}`;
      const signin = readForm(await (await browser.get(url)).text());
      const res = await browser.post(signin.action, {
        ...signin.fields,
        email: person.email,
        password: person.password,
      });
      const html = await res.text();
      assert.equal(readForm(html).fields.step, 'consent', pageText(html));
      return html;
    }

    it('a registered integration: its website, privacy policy and terms are links with their hosts; no image', async () => {
      const client = await insertTestClient(t.ctx.db, {
        kind: 'integration',
        name: 'Gradebook',
        redirectUris: ['https://gradebook.example.com/callback'],
        metadata: PAGES,
        now: REGISTERED,
      });
      const html = await consentHtml(client.id, 'https://gradebook.example.com/callback');
      assert.match(
        html,
        /<a href="https:\/\/gradebook.example.com\/privacy" rel="noopener noreferrer">Privacy policy<\/a> \(gradebook.example.com\)/,
      );
      assert.match(
        html,
        /<a href="https:\/\/legal.example.org\/terms" rel="noopener noreferrer">Terms of service<\/a> \(legal.example.org\)/,
      );
      assert.match(pageText(html), /Registered 2031-05-06 · not used yet/);
      assert.doesNotMatch(html, /<img|cdn\.example\.net/);
    });

    it('a self-registered app: the same pages only as plain text hosts, never a link or an image', async () => {
      const client = await insertTestClient(t.ctx.db, {
        name: 'Maths Agent',
        metadata: PAGES,
        now: REGISTERED,
      });
      const html = await consentHtml(client.id, 'http://127.0.0.1:4711/callback');
      assert.match(
        pageText(html),
        /Website: gradebook.example.com · Privacy policy: gradebook.example.com · Terms of service: legal.example.org \(named by the app, not checked\)/,
      );
      assert.doesNotMatch(html, /href="https:\/\/(gradebook|legal)/);
      assert.doesNotMatch(html, /<img|cdn\.example\.net/);
      assert.match(pageText(html), /Registered 2031-05-06/);
    });

    it('shows when the app was last used', async () => {
      const client = await insertTestClient(t.ctx.db, { name: 'Maths Agent', now: REGISTERED });
      await t.ctx.db
        .updateTable('clients')
        .set({ last_used_at: REGISTERED + 86_400 * 3 })
        .where('id', '=', client.id)
        .execute();
      const html = await consentHtml(client.id, 'http://127.0.0.1:4711/callback');
      assert.match(pageText(html), /Registered 2031-05-06 · last used 2031-05-09/);
    });
  });
}
