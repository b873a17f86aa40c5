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
  readForm,
  readForms,
} from '../helpers/flow.js';
import { postForm, registerConfidential } from '../helpers/oauth.js';

const LOOPBACK = 'http://127.0.0.1:4711/callback';
const PARTNER = 'https://partner.example.com/cb';

for (const dialect of DIALECTS) {
  describe(`Connected apps [${dialect}]`, () => {
    let t: TestApp;
    let cli: Client;
    let partner: Client;
    let person: Person;
    let browser: Browser;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      cli = await insertTestClient(t.ctx.db, {
        name: 'Course CLI',
        redirectUris: ['http://127.0.0.1/callback'],
      });
      partner = await insertTestClient(t.ctx.db, {
        kind: 'integration',
        name: 'Partner Shop',
        redirectUris: [PARTNER],
      });
      person = await createPerson(t.ctx.store);
      browser = new Browser(t.url);
    });
    after(() => t.close());

    const grant = (
      client: Client,
      redirectUri: string,
      scope: string,
      who: Person = person,
      b: Browser = browser,
    ) =>
      authorizeViaPages({
        baseUrl: t.url,
        params: {
          client_id: client.id,
          redirect_uri: redirectUri,
          scope,
          code_challenge: pkcePair().challenge,
        },
        email: who.email,
        password: who.password,
        decision: 'allow',
        browser: b,
      });

    async function addTokens(grantId: string, client: Client): Promise<void> {
      const now = t.clock.now();
      const row = {
        grant_id: grantId,
        client_id: client.id,
        account_id: person.account.id,
        scopes: 'openid',
        resource: t.config.issuer,
        created_at: now,
        expires_at: now + 3600,
        revoked_at: null,
      };
      await t.ctx.db
        .insertInto('access_tokens')
        .values({ ...row, token_hash: `at-${grantId}` })
        .execute();
      await t.ctx.db
        .insertInto('refresh_tokens')
        .values({ ...row, token_hash: `rt-${grantId}`, rotated_at: null })
        .execute();
    }

    const grantsOf = (client: Client) =>
      t.ctx.db
        .selectFrom('grants')
        .selectAll()
        .where('account_id', '=', person.account.id)
        .where('client_id', '=', client.id)
        .execute();

    it('without a session the page sends the person to sign in and back', async () => {
      const fresh = new Browser(t.url);
      const res = await fresh.get('/account/apps');
      assert.equal(res.status, 303);
      const signInUrl = res.headers.get('location')!;
      assert.equal(signInUrl, '/signin?return_to=%2Faccount%2Fapps');
      const form = readForm(await (await fresh.get(signInUrl)).text());
      const signedIn = await fresh.post(form.action, {
        ...form.fields,
        email: person.email,
        password: person.password,
      });
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.headers.get('location'), '/account/apps');
      const page = await fresh.get('/account/apps');
      assert.equal(page.status, 200);
      assert.match(pageText(await page.text()), /No apps can use your account/);
    });

    it('lists each client once with kind, redirect kind, scopes by area, first granted and last used', async () => {
      await grant(cli, LOOPBACK, 'openid courses:read');
      await grant(cli, LOOPBACK, 'orders:read');
      await grant(partner, PARTNER, 'school:read');
      const stranger = await createPerson(t.ctx.store);
      const strangerApp = await insertTestClient(t.ctx.db, { name: 'Stranger App' });
      await grant(strangerApp, LOOPBACK, 'openid', stranger, new Browser(t.url));
      const lastUsed = Date.UTC(2031, 4, 6, 7, 8) / 1000;
      await t.ctx.db
        .updateTable('grants')
        .set({ last_used_at: lastUsed })
        .where('client_id', '=', cli.id)
        .where('account_id', '=', person.account.id)
        .execute();

      const res = await browser.get('/account/apps');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const html = await res.text();
      const text = pageText(html);
      assert.doesNotMatch(text, /Stranger App/);
      assert.equal(html.match(/<h2 id="app-\d+">Course CLI /g)?.length, 1, 'one entry per client');
      assert.match(
        text,
        new RegExp(
          `Course CLI Self-registered · not verified App ID …${cli.id.slice(-6)} · registered \\d{4}-\\d\\d-\\d\\d · last used 2031-05-06 07:08 UTC Your identity and account \\(see\\), Courses \\(see\\), Sales and payments \\(see\\) Details`,
        ),
      );
      assert.match(text, /Redirects to an app on your computer \(loopback\)/);
      assert.match(text, /Partner Shop Registered integration .* Redirects to a website \(https\)/);
      assert.match(text, /Access Has access now/);
      assert.match(text, /Last used 2031-05-06 07:08 UTC/);
      assert.match(text, /First allowed \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      const cliSection = text.slice(text.indexOf('Course CLI'), text.indexOf('Partner Shop'));
      assert.match(cliSection, /Your identity and account Confirm who you are/);
      assert.match(cliSection, /Courses See your courses/);
      assert.match(cliSection, /Sales and payments See orders and payments/);
      const revokeForms = readForms(html).filter((f) => f.action === '/account/apps/revoke');
      assert.deepEqual(revokeForms.map((f) => f.fields.client_id).sort(), [cli.id, partner.id].sort());
      assert.ok(revokeForms.every((f) => f.buttons.some((b) => b.label === 'Revoke')));
    });

    it('Revoke needs the CSRF token', async () => {
      const res = await browser.post('/account/apps/revoke', { client_id: cli.id, csrf_token: 'forged' });
      assert.equal(res.status, 403);
      assert.ok((await grantsOf(cli)).every((g) => g.revoked_at === null));
    });

    it('Revoke ends every grant of that client and all their tokens, forgets consent, leaves other apps', async () => {
      const grants = await grantsOf(cli);
      assert.equal(grants.length, 2);
      for (const g of grants) await addTokens(g.id, cli);
      const partnerGrant = (await grantsOf(partner))[0]!;
      await addTokens(partnerGrant.id, partner);

      const html = await (await browser.get('/account/apps')).text();
      const form = readForms(html).find((f) => f.fields.client_id === cli.id)!;
      const res = await browser.post(form.action, form.fields);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/account/apps?done=revoked');

      assert.ok((await grantsOf(cli)).every((g) => g.revoked_at !== null));
      for (const table of ['access_tokens', 'refresh_tokens'] as const) {
        const rows = await t.ctx.db
          .selectFrom(table)
          .select(['grant_id', 'revoked_at'])
          .where('account_id', '=', person.account.id)
          .execute();
        for (const row of rows) {
          if (row.grant_id === partnerGrant.id) assert.equal(row.revoked_at, null, 'other app untouched');
          else assert.notEqual(row.revoked_at, null, `${table} revoked`);
        }
      }
      assert.equal((await grantsOf(partner))[0]!.revoked_at, null);
      const consent = await t.ctx.db
        .selectFrom('consents')
        .selectAll()
        .where('account_id', '=', person.account.id)
        .execute();
      assert.deepEqual(
        consent.map((c) => c.client_id),
        [partner.id],
      );
      const audit = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'grant.revoked')
        .where('client_id', '=', cli.id)
        .execute();
      assert.equal(audit.length, 1);

      const after = pageText(await (await browser.get(res.headers.get('location')!)).text());
      assert.match(after, /Access was revoked/);
      assert.doesNotMatch(after, /Course CLI/);
      assert.match(after, /Partner Shop/);

      // The app must ask again.
      const again = await browser.get(
        `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: cli.id, redirect_uri: LOOPBACK, scope: 'openid', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`,
      );
      assert.equal(again.status, 200);
      assert.equal(readForm(await again.text()).fields.step, 'consent');
    });
    /** Authorizes through the pages, redeems the code, then revokes the refresh token (RFC 7009). */
    async function authorizeThenRevokeTokens(
      who: Person,
      b: Browser,
      client: { id: string; secret?: string | undefined },
    ): Promise<void> {
      const pkce = pkcePair();
      const redirect = await authorizeViaPages({
        baseUrl: t.url,
        params: {
          client_id: client.id,
          redirect_uri: LOOPBACK,
          scope: 'openid courses:read',
          code_challenge: pkce.challenge,
        },
        email: who.email,
        password: who.password,
        decision: 'allow',
        browser: b,
      });
      const credentials = { client_id: client.id, client_secret: client.secret };
      const tokens = await postForm(t, '/api/oauth/token', {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        redirect_uri: LOOPBACK,
        code_verifier: pkce.verifier,
        ...credentials,
      });
      assert.equal(tokens.statusCode, 200, tokens.body);
      const revoked = await postForm(t, '/api/oauth/revoke', {
        token: tokens.json().refresh_token,
        ...credentials,
      });
      assert.equal(revoked.statusCode, 200);
    }

    it('an app whose tokens were all revoked stays listed while its consent would let it back in; Revoke forgets it', async () => {
      const who = await createPerson(t.ctx.store);
      const b = new Browser(t.url);
      const desktop = await registerConfidential(t, {
        client_name: 'Grades Desktop',
        redirect_uris: [LOOPBACK],
      });
      await authorizeThenRevokeTokens(who, b, { id: desktop.client_id, secret: desktop.client_secret });
      await authorizeThenRevokeTokens(who, b, { id: cli.id });
      const live = await t.ctx.db
        .selectFrom('grants')
        .select('id')
        .where('account_id', '=', who.account.id)
        .where('revoked_at', 'is', null)
        .execute();
      assert.equal(live.length, 0, 'every token and grant is revoked');

      const html = await (await b.get('/account/apps')).text();
      const text = pageText(html);
      assert.match(
        text,
        /Grades Desktop Self-registered · not verified .*Access No access now; your earlier Allow is remembered and lets it back in without asking/,
      );
      assert.match(
        text,
        /Course CLI .*Access No access now; your earlier Allow is remembered, and the app must ask you again/,
      );

      const form = readForms(html).find((f) => f.fields.client_id === desktop.client_id)!;
      assert.equal((await b.post(form.action, form.fields)).status, 303);
      const after = pageText(await (await b.get('/account/apps')).text());
      assert.doesNotMatch(after, /Grades Desktop/);
      assert.match(after, /Course CLI/);
      // Without the consent, the confidential app is no longer answered silently: it must ask.
      const again = await b.get(
        `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: desktop.client_id, redirect_uri: LOOPBACK, scope: 'courses:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`,
      );
      assert.equal(again.status, 200);
      assert.equal(readForm(await again.text()).fields.step, 'consent');
    });

    it('shows an app whose tokens are bound to a DPoP key as Key-bound, in the entry and its details', async () => {
      const agent = await insertTestClient(t.ctx.db, {
        name: 'Keyed Agent',
        redirectUris: ['http://127.0.0.1/callback'],
      });
      await grant(agent, LOOPBACK, 'openid');
      const [row] = await grantsOf(agent);
      await addTokens(row!.id, agent);
      const keyed = async () => {
        const text = pageText(await (await browser.get('/account/apps')).text());
        return (
          /Keyed Agent[\s\S]*?Key-bound Your identity/.test(text) &&
          /Tokens Key-bound: they work only with a key kept by the app \(DPoP\)/.test(text)
        );
      };
      assert.equal(await keyed(), false, 'bearer tokens are not key-bound');
      await t.ctx.db
        .updateTable('refresh_tokens')
        .set({ jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' })
        .where('grant_id', '=', row!.id)
        .execute();
      assert.equal(await keyed(), true);
    });
  });
}
