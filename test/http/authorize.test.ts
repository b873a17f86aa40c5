import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/tokens.js';
import { updateAccount } from '../../src/storage/accounts.repository.js';
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
} from '../helpers/flow.js';

const REDIRECT = 'http://127.0.0.1:4711/callback';

for (const dialect of DIALECTS) {
  describe(`authorization flow through sign-in and consent [${dialect}]`, () => {
    let t: TestApp;
    let client: Client;
    let confidential: Client;
    let person: Person;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      client = await insertTestClient(t.ctx.db, {
        name: 'Maths CLI',
        redirectUris: ['http://127.0.0.1/callback'],
      });
      confidential = await insertTestClient(t.ctx.db, {
        name: 'Maths Desktop',
        redirectUris: ['http://127.0.0.1/callback'],
        confidential: true,
      });
      person = await createPerson(t.ctx.store);
    });
    after(() => t.close());

    const params = (extra: Record<string, string> = {}) => ({
      client_id: client.id,
      redirect_uri: REDIRECT,
      scope: 'openid courses:read',
      code_challenge: pkcePair().challenge,
      state: 'st-1',
      ...extra,
    });
    const codeRow = (code: string) =>
      t.ctx.db
        .selectFrom('authorization_codes')
        .selectAll()
        .where('code_hash', '=', hashSecret(code))
        .executeTakeFirstOrThrow();
    const authorizeUrl = (p: Record<string, string>) =>
      `/oauth/authorize?${new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...p })}`;
    const signIn = { email: () => person.email, password: () => person.password };
    const run = (browser: Browser, p: Record<string, string>, decision: 'allow' | 'deny' = 'allow') =>
      authorizeViaPages({
        baseUrl: t.url,
        params: p,
        email: signIn.email(),
        password: signIn.password(),
        decision,
        browser,
      });

    it('sign in and Allow redirect with code, state and iss; the code carries the request', async () => {
      const p = params({ nonce: 'n-0S6_WzA2Mj', resource: `${t.url}/` });
      const url = await run(new Browser(t.url), p);
      assert.equal(`${url.origin}${url.pathname}`, REDIRECT);
      assert.equal(url.searchParams.get('state'), 'st-1');
      assert.equal(url.searchParams.get('iss'), t.config.issuer);
      const code = url.searchParams.get('code')!;
      assert.match(code, /^sa_ac_/);
      const row = await codeRow(code);
      assert.equal(row.client_id, client.id);
      assert.equal(row.account_id, person.account.id);
      assert.equal(row.redirect_uri, REDIRECT);
      assert.equal(row.code_challenge, p.code_challenge);
      assert.equal(row.scopes, 'openid courses:read');
      assert.equal(row.nonce, 'n-0S6_WzA2Mj');
      assert.equal(row.resource, t.config.issuer);
      const kinds = (
        await t.ctx.db
          .selectFrom('audit_events')
          .select('kind')
          .where('account_id', '=', person.account.id)
          .execute()
      ).map((r) => r.kind);
      for (const kind of ['signin.success', 'consent.granted', 'code.issued'])
        assert.ok(kinds.includes(kind), kind);
    });

    it('a dpop_jkt in the request binds the code to that DPoP key (RFC 9449 §10)', async () => {
      const jkt = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
      const url = await run(new Browser(t.url), params({ dpop_jkt: jkt }));
      assert.equal((await codeRow(url.searchParams.get('code')!)).jkt, jkt);
    });

    it('Deny redirects with access_denied, state and iss, and issues nothing', async () => {
      const other = await createPerson(t.ctx.store);
      const url = await authorizeViaPages({
        baseUrl: t.url,
        params: params(),
        email: other.email,
        password: other.password,
        decision: 'deny',
      });
      assert.equal(url.searchParams.get('error'), 'access_denied');
      assert.equal(url.searchParams.get('state'), 'st-1');
      assert.equal(url.searchParams.get('iss'), t.config.issuer);
      assert.equal(url.searchParams.get('code'), null);
      const grants = await t.ctx.db
        .selectFrom('grants')
        .select('id')
        .where('account_id', '=', other.account.id)
        .execute();
      assert.equal(grants.length, 0);
    });

    it('confidential client: remembered consent lets a subset straight through, more scopes ask again', async () => {
      const browser = new Browser(t.url);
      const conf = { client_id: confidential.id };
      await run(browser, params({ ...conf, scope: 'openid courses:read courses:write' }));
      const subset = await browser.get(authorizeUrl(params({ ...conf, scope: 'courses:read' })));
      assert.equal(subset.status, 302);
      assert.ok(new URL(subset.headers.get('location')!).searchParams.get('code'));
      const more = await browser.get(authorizeUrl(params({ ...conf, scope: 'courses:read orders:read' })));
      assert.equal(more.status, 200);
      const form = readForm(await more.text());
      assert.equal(form.fields.step, 'consent');
    });

    it('confidential client: prompt=consent asks again even when consent is remembered', async () => {
      const browser = new Browser(t.url);
      const conf = { client_id: confidential.id };
      await run(browser, params(conf));
      const res = await browser.get(authorizeUrl(params({ ...conf, prompt: 'consent' })));
      assert.equal(res.status, 200);
      assert.equal(readForm(await res.text()).fields.step, 'consent');
    });

    it('confidential client, prompt=none: code with session and consent, consent_required without consent', async () => {
      const browser = new Browser(t.url);
      const conf = { client_id: confidential.id };
      await run(browser, params(conf));
      const ok = await browser.get(authorizeUrl(params({ ...conf, prompt: 'none' })));
      assert.ok(new URL(ok.headers.get('location')!).searchParams.get('code'));
      const more = await browser.get(authorizeUrl(params({ ...conf, prompt: 'none', scope: 'orders:read' })));
      const url = new URL(more.headers.get('location')!);
      assert.equal(url.searchParams.get('error'), 'consent_required');
      assert.equal(url.searchParams.get('state'), 'st-1');
      assert.equal(url.searchParams.get('iss'), t.config.issuer);
    });

    it('public client (RFC 8252 §8.6): remembered consent shows the consent page again, with Allow and Deny', async () => {
      const browser = new Browser(t.url);
      await run(browser, params({ scope: 'openid courses:read courses:write' }));
      const again = await browser.get(authorizeUrl(params({ scope: 'courses:read' })));
      assert.equal(again.status, 200, 'no silent code');
      const html = await again.text();
      const form = readForm(html);
      assert.equal(form.fields.step, 'consent');
      assert.deepEqual(
        form.buttons.map((b) => `${b.value}:${b.label}`),
        ['allow:Allow', 'deny:Deny'],
      );
      assert.match(pageText(html), /You allowed this app before \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
      assert.doesNotMatch(html, /<[^>]*\s(autofocus|checked|selected)\b[^>]*>/, 'nothing is pre-chosen');
      // Deny still refuses; Allow issues the code.
      const denied = await browser.post(form.action, { ...form.fields, decision: 'deny' });
      assert.equal(new URL(denied.headers.get('location')!).searchParams.get('error'), 'access_denied');
      const allowed = await run(browser, params({ scope: 'courses:read' }));
      assert.match(allowed.searchParams.get('code') ?? '', /^sa_ac_/);
    });

    it('public client (RFC 8252 §8.6): prompt=none answers consent_required even with remembered consent', async () => {
      const browser = new Browser(t.url);
      await run(browser, params());
      const res = await browser.get(authorizeUrl(params({ prompt: 'none' })));
      assert.equal(res.status, 302);
      const url = new URL(res.headers.get('location')!);
      assert.equal(url.searchParams.get('code'), null);
      assert.equal(url.searchParams.get('error'), 'consent_required');
      assert.match(url.searchParams.get('error_description')!, /public client.*RFC 8252 §8\.6/);
      assert.equal(url.searchParams.get('state'), 'st-1');
      assert.equal(url.searchParams.get('iss'), t.config.issuer);
    });

    it('prompt=login shows sign-in despite a session, and the code carries the new auth_time', async () => {
      const browser = new Browser(t.url);
      const first = await run(browser, params());
      const firstAuth = (await codeRow(first.searchParams.get('code')!)).auth_time;
      t.clock.advance(120);
      const shown = await browser.get(authorizeUrl(params({ prompt: 'login' })));
      assert.equal(shown.status, 200);
      assert.equal(readForm(await shown.text()).fields.step, 'signin');
      const again = await run(browser, params({ prompt: 'login' }));
      const row = await codeRow(again.searchParams.get('code')!);
      assert.ok(row.auth_time >= firstAuth + 120, 'auth_time is the new sign-in');
    });

    it('max_age forces sign-in when the last sign-in is older, not when it is recent', async () => {
      const browser = new Browser(t.url);
      await run(browser, params());
      t.clock.advance(300);
      const recent = await browser.get(authorizeUrl(params({ max_age: '3600' })));
      assert.equal(recent.status, 200);
      assert.equal(readForm(await recent.text()).fields.step, 'consent', 'no sign-in needed');
      const old = await browser.get(authorizeUrl(params({ max_age: '60' })));
      assert.equal(old.status, 200);
      assert.equal(readForm(await old.text()).fields.step, 'signin');
      const url = await run(browser, params({ max_age: '60' }));
      assert.ok(url.searchParams.get('code'));
      t.clock.advance(2);
      const stale = await browser.get(authorizeUrl(params({ max_age: '1', prompt: 'none' })));
      assert.equal(new URL(stale.headers.get('location')!).searchParams.get('error'), 'login_required');
    });

    it('a wrong password and an unknown email fail with the same message; a disabled account cannot sign in', async () => {
      const texts: string[] = [];
      const disabled = await createPerson(t.ctx.store);
      await updateAccount(t.ctx.db, disabled.account.id, { disabled: 1 }, t.clock.now());
      for (const [email, password] of [
        [person.email, 'wrong password!'],
        ['nobody@example.com', 'whatever password'],
        [disabled.email, disabled.password],
      ] as const) {
        const browser = new Browser(t.url);
        const page = await browser.get(authorizeUrl(params()));
        const form = readForm(await page.text());
        const res = await browser.post(form.action, { ...form.fields, email, password });
        assert.equal(res.status, 200);
        const html = await res.text();
        assert.equal(readForm(html).fields.step, 'signin', 'the sign-in page is shown again');
        assert.equal(browser.cookies.has('schoolauth_session'), false, 'no session is started');
        texts.push(pageText(html).replace(email, ''));
      }
      assert.equal(new Set(texts).size, 1, 'no account enumeration');
      assert.match(texts[0]!, /did not match/);
    });

    it('matches a loopback URI without a path, at any port, and redirects to exactly the URI requested (RFC 3986 §6.2.3)', async () => {
      for (const registered of ['http://127.0.0.1', 'http://127.0.0.1:4242', 'http://127.0.0.1/']) {
        const pathless = await insertTestClient(t.ctx.db, { redirectUris: [registered] });
        for (const requested of ['http://127.0.0.1:51234', 'http://127.0.0.1:51235/']) {
          const url = await run(
            new Browser(t.url),
            params({ client_id: pathless.id, redirect_uri: requested }),
          );
          assert.equal(`${url.origin}${url.pathname}`, `http://127.0.0.1:${new URL(requested).port}/`);
          const row = await codeRow(url.searchParams.get('code')!);
          assert.equal(row.redirect_uri, requested, 'the code is bound to the URI the request named');
        }
        const elsewhere = await new Browser(t.url).get(
          authorizeUrl(params({ client_id: pathless.id, redirect_uri: 'http://127.0.0.1:51234/cb' })),
        );
        assert.equal(elsewhere.status, 400, 'another path is not the registered URI');
      }
    });

    it('accepts offline_access and ignores it: not on the consent page, not granted, not remembered (OIDC Core §11)', async () => {
      const other = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const p = params({ scope: 'openid offline_access courses:read' });
      const first = await browser.get(authorizeUrl(p));
      const signin = readForm(await first.text());
      const consent = await browser.post(signin.action, {
        ...signin.fields,
        email: other.email,
        password: other.password,
      });
      const consentHtml = await consent.text();
      assert.equal(readForm(consentHtml).fields.step, 'consent');
      assert.doesNotMatch(pageText(consentHtml), /offline/i);
      const url = await run(browser, p);
      const row = await codeRow(url.searchParams.get('code')!);
      assert.equal(row.scopes, 'openid courses:read');
      const consents = await t.ctx.db
        .selectFrom('consents')
        .select('scopes')
        .where('account_id', '=', other.account.id)
        .execute();
      assert.deepEqual(
        consents.map((c) => c.scopes),
        ['openid courses:read'],
      );
      const alone = await browser.get(authorizeUrl(params({ scope: 'offline_access' })));
      const error = new URL(alone.headers.get('location')!);
      assert.equal(error.searchParams.get('error'), 'invalid_scope');
      assert.match(error.searchParams.get('error_description')!, /offline_access alone/);
    });

    it('a request without scope gets the documented default openid profile account:read, no write scope (RFC 6749 §3.3)', async () => {
      for (const scope of [undefined, ' ']) {
        const browser = new Browser(t.url);
        const p = params();
        if (scope === undefined) delete (p as Partial<typeof p>).scope;
        else p.scope = scope;
        const url = await run(browser, p);
        assert.equal(url.searchParams.get('error'), null, String(url));
        const row = await codeRow(url.searchParams.get('code')!);
        assert.equal(row.scopes, 'openid profile account:read');
      }
    });

    it('the sign-in page keeps the request: the hidden fields are re-validated on POST', async () => {
      const browser = new Browser(t.url);
      const page = await browser.get(authorizeUrl(params()));
      const form = readForm(await page.text());
      const tampered = {
        ...form.fields,
        redirect_uri: 'http://127.0.0.1:4711/elsewhere',
        email: person.email,
        password: person.password,
      };
      const res = await browser.post(form.action, tampered);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('location'), null);
    });
  });
}
