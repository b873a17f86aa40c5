/**
 * Connected apps that scale (docs/decisions.md "Connected apps"): a compact entry per app with
 * what tells apps of one name apart, details in a `<details>`, one button that revokes every
 * self-registered app of one name, a search from many apps on, and Sign out at the top.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import {
  authorizeViaPages,
  Browser,
  createPerson,
  insertTestClient,
  type Person,
  pageText,
  pkcePair,
  readForms,
} from '../helpers/flow.js';

const LOOPBACK = 'http://127.0.0.1:4711/callback';
const DAY = 86_400;

for (const dialect of DIALECTS) {
  describe(`Connected apps that scale [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
    });
    after(() => t.close());

    const grant = (client: Client, who: Person, browser: Browser) =>
      authorizeViaPages({
        baseUrl: t.url,
        params: {
          client_id: client.id,
          redirect_uri: LOOPBACK,
          scope: 'openid courses:read',
          code_challenge: pkcePair().challenge,
        },
        email: who.email,
        password: who.password,
        decision: 'allow',
        browser,
      });
    const liveGrants = (who: Person) =>
      t.ctx.db
        .selectFrom('grants')
        .select('client_id')
        .where('account_id', '=', who.account.id)
        .where('revoked_at', 'is', null)
        .execute();

    it('apps of one name are told apart; one button revokes every self-registered app of that name, and only those', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const base = Date.UTC(2031, 4, 6) / 1000;
      const agents = [];
      for (let i = 0; i < 3; i++) {
        agents.push(await insertTestClient(t.ctx.db, { name: 'Agent CLI', now: base + i * DAY }));
      }
      const other = await insertTestClient(t.ctx.db, { name: 'Gradebook Sync' });
      for (const client of [...agents, other]) await grant(client, person, browser);

      const html = await (await browser.get('/account/apps')).text();
      const text = pageText(html);
      for (const [i, agent] of agents.entries()) {
        assert.match(
          text,
          new RegExp(
            `Agent CLI Self-registered · not verified App ID …${agent.id.slice(-6)} · registered 2031-05-0${6 + i}`,
          ),
        );
      }
      // Newest registration first among apps of one name.
      assert.ok(text.indexOf('registered 2031-05-08') < text.indexOf('registered 2031-05-06'));
      assert.equal(html.match(/<details>/g)?.length, 4, 'details per app, closed');
      assert.match(text, /3 self-registered apps are named “Agent CLI”/);
      const all = readForms(html).find((f) =>
        f.buttons.some((b) => b.label === 'Revoke all 3 named “Agent CLI”'),
      );
      assert.ok(all, 'a Revoke all button');
      const ids = [...html.matchAll(/<div class="revoke-all">([\s\S]*?)<\/div>/g)].flatMap((m) =>
        [...m[1]!.matchAll(/name="client_id" value="([^"]*)"/g)].map((v) => v[1]!),
      );
      assert.deepEqual(ids.sort(), agents.map((a) => a.id).sort());

      const stranger = await createPerson(t.ctx.store);
      await grant(agents[0]!, stranger, new Browser(t.url));
      const res = await browser.post('/account/apps/revoke', [
        ['csrf_token', all.fields.csrf_token!],
        ...ids.map((id): [string, string] => ['client_id', id]),
      ]);
      assert.equal(res.status, 303);
      assert.deepEqual(
        (await liveGrants(person)).map((g) => g.client_id),
        [other.id],
      );
      assert.equal((await liveGrants(stranger)).length, 1, "another person's grant to the same app stays");
      const after = pageText(await (await browser.get('/account/apps')).text());
      assert.doesNotMatch(after, /Agent CLI/);
      assert.match(after, /Gradebook Sync/);
    });

    it('Sign out comes first on the page', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      await grant(await insertTestClient(t.ctx.db, { name: 'Solo' }), person, browser);
      const forms = readForms(await (await browser.get('/account/apps')).text());
      assert.equal(forms[0]?.action, '/signout');
      assert.deepEqual(
        forms[0]?.buttons.map((b) => b.label),
        ['Sign out'],
      );
    });

    it('from 8 apps on a search finds apps by name or ID; with fewer there is no search box', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const clients = [];
      for (let i = 0; i < 7; i++) {
        const client = await insertTestClient(t.ctx.db, { name: `Tool ${String.fromCharCode(65 + i)}` });
        clients.push(client);
        await grant(client, person, browser);
      }
      assert.doesNotMatch(await (await browser.get('/account/apps')).text(), /type="search"/);
      const eighth = await insertTestClient(t.ctx.db, { name: 'Report Maker' });
      await grant(eighth, person, browser);
      const listed = await (await browser.get('/account/apps')).text();
      assert.match(listed, /<label for="find-app">Find an app by name, host or ID<\/label>/);
      const byName = pageText(await (await browser.get('/account/apps?q=report')).text());
      assert.match(byName, /1 of 8 apps match “report”/);
      assert.match(byName, /Report Maker/);
      assert.doesNotMatch(byName, /Tool A/);
      const byId = pageText(await (await browser.get(`/account/apps?q=${clients[2]!.id.slice(-6)}`)).text());
      assert.match(byId, /Tool C/);
      assert.doesNotMatch(byId, /Report Maker/);
    });
  });
}
