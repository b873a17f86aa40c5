/**
 * The person chooses on the consent page (docs/decisions.md "Consent"): every requested scope a
 * ticked box, untick any but openid, "Read only" in one click, exactly what was ticked granted
 * and said in the token response's `scope` (RFC 6749 §3.3); a forged form never widens.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/tokens.js';
import type { Client } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import {
  Browser,
  createPerson,
  insertTestClient,
  type Person,
  pageText,
  pkcePair,
  readForm,
} from '../helpers/flow.js';
import { postForm } from '../helpers/oauth.js';

const REDIRECT = 'http://127.0.0.1:4711/callback';

/** The scope boxes of a consent page: value, ticked, disabled. */
function boxes(html: string): Array<{ value: string | undefined; checked: boolean; disabled: boolean }> {
  return [...html.matchAll(/<input type="checkbox"([^>]*)>/g)].map((m) => ({
    value: /value="([^"]*)"/.exec(m[1]!)?.[1],
    checked: / checked/.test(m[1]!),
    disabled: / disabled/.test(m[1]!),
  }));
}

for (const dialect of DIALECTS) {
  describe(`consent: the person chooses the scopes [${dialect}]`, () => {
    let t: TestApp;
    let client: Client;
    let confidential: Client;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      client = await insertTestClient(t.ctx.db, { name: 'Maths CLI' });
      confidential = await insertTestClient(t.ctx.db, { name: 'Maths Desktop', confidential: true });
    });
    after(() => t.close());

    /** Signs `person` in (once per browser) and returns the consent page for `scope`. */
    async function consentPage(
      browser: Browser,
      person: Person,
      scope: string,
      pkce = pkcePair(),
      clientId = client.id,
    ) {
      const url = authorizeUrl(scope, pkce, clientId);
      let res = await browser.get(url);
      let html = await res.text();
      if (readForm(html).fields.step === 'signin') {
        const form = readForm(html);
        res = await browser.post(form.action, {
          ...form.fields,
          email: person.email,
          password: person.password,
        });
        html = await res.text();
      }
      assert.equal(res.status, 200, pageText(html));
      assert.equal(readForm(html).fields.step, 'consent');
      return { html, form: readForm(html), pkce };
    }

    const authorizeUrl = (scope: string, pkce = pkcePair(), clientId = client.id) =>
      `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        state: 'st',
      })}`;

    async function exchange(location: string, verifier: string) {
      const code = new URL(location).searchParams.get('code');
      assert.ok(code, location);
      const res = await postForm(t, '/api/oauth/token', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: client.id,
        code_verifier: verifier,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { access_token: string; scope: string };
    }

    const consentRow = (accountId: string, clientId = client.id) =>
      t.ctx.db
        .selectFrom('consents')
        .select('scopes')
        .where('account_id', '=', accountId)
        .where('client_id', '=', clientId)
        .executeTakeFirst();
    const codeScopes = async (location: string) =>
      (
        await t.ctx.db
          .selectFrom('authorization_codes')
          .select('scopes')
          .where('code_hash', '=', hashSecret(new URL(location).searchParams.get('code')!))
          .executeTakeFirstOrThrow()
      ).scopes;

    it('shows a ticked box per requested scope, its value the scope code; openid ticked and disabled', async () => {
      const { html } = await consentPage(
        new Browser(t.url),
        await createPerson(t.ctx.store),
        'openid courses:read courses:write',
      );
      assert.deepEqual(boxes(html), [
        { value: undefined, checked: true, disabled: true },
        { value: 'courses:read', checked: true, disabled: false },
        { value: 'courses:write', checked: true, disabled: false },
      ]);
      assert.match(html, /<label for="scope-courses-read">See your courses, including drafts<\/label>/);
      assert.match(pageText(html), /always included/);
      assert.ok(readForm(html).buttons.some((b) => b.label === 'Read only' && b.value === 'allow-read-only'));
    });

    it('no Read only button when the request does not mix read and write', async () => {
      const { form } = await consentPage(
        new Browser(t.url),
        await createPerson(t.ctx.store),
        'openid courses:read',
      );
      assert.deepEqual(
        form.buttons.map((b) => b.label),
        ['Allow', 'Deny'],
      );
    });

    it('issues exactly what was ticked: the token response says so and an unticked scope answers 403 insufficient_scope', async () => {
      const other = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const { form, pkce } = await consentPage(browser, other, 'openid profile account:read account:write');
      const res = await browser.post(form.action, {
        ...form.fields,
        grant_scope: 'account:read',
        decision: 'allow',
      });
      assert.equal(res.status, 303);
      const tokens = await exchange(res.headers.get('location')!, pkce.verifier);
      assert.equal(tokens.scope, 'openid account:read');
      const auth = { authorization: `Bearer ${tokens.access_token}` };
      const read = await t.app.inject({ method: 'GET', url: '/api/v1/account', headers: auth });
      assert.equal(read.statusCode, 200);
      const write = await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/account',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: { name: 'Changed' },
      });
      assert.equal(write.statusCode, 403);
      assert.equal(write.json().error, 'insufficient_scope');
      assert.equal((await consentRow(other.account.id))?.scopes, 'openid account:read');
    });

    it('Read only allows the ticked scopes that do not change data', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const { form, pkce } = await consentPage(
        browser,
        person,
        'openid courses:read courses:write storage:write email',
      );
      const res = await browser.post(form.action, { ...form.fields, decision: 'allow-read-only' });
      const tokens = await exchange(res.headers.get('location')!, pkce.verifier);
      assert.equal(tokens.scope, 'openid email courses:read');
    });

    it('openid cannot be unticked: it is granted when requested even if the form leaves it out', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const { form, pkce } = await consentPage(browser, person, 'openid email');
      const res = await browser.post(form.action, { ...form.fields, grant_scope: '', decision: 'allow' });
      const tokens = await exchange(res.headers.get('location')!, pkce.verifier);
      assert.equal(tokens.scope, 'openid');
    });

    it('a forged form that ticks a scope the app did not ask for allows nothing (400 page, no code, no consent)', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const { form } = await consentPage(browser, person, 'openid courses:read');
      const res = await browser.post(form.action, {
        ...form.fields,
        grant_scope: 'courses:read school:write',
        decision: 'allow',
      });
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('location'), null);
      assert.match(pageText(await res.text()), /"school:write", which the app did not ask for/);
      assert.equal(await consentRow(person.account.id), undefined);
      const grants = await t.ctx.db
        .selectFrom('grants')
        .select('id')
        .where('account_id', '=', person.account.id)
        .execute();
      assert.equal(grants.length, 0);
    });

    it('nothing ticked (openid not requested): the page again, 400, saying so; nothing granted', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const { form } = await consentPage(browser, person, 'courses:read courses:write');
      const { grant_scope: _, ...untouched } = form.fields;
      const res = await browser.post(form.action, { ...untouched, decision: 'allow' });
      assert.equal(res.status, 400);
      const html = await res.text();
      assert.match(pageText(html), /Nothing was ticked/);
      assert.equal(readForm(html).fields.step, 'consent');
      assert.equal(await consentRow(person.account.id), undefined);
      const read = await browser.post(form.action, {
        ...untouched,
        decision: 'allow-read-only',
        grant_scope: 'courses:write',
      });
      assert.equal(read.status, 400, 'Read only of only write scopes allows nothing');
      const codes = await t.ctx.db
        .selectFrom('authorization_codes')
        .select('code_hash')
        .where('account_id', '=', person.account.id)
        .execute();
      assert.deepEqual(codes, []);
    });

    it('asking again for more shows what is already allowed apart and asks only about the new scopes; the grant is the union', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const first = await consentPage(browser, person, 'openid courses:read');
      const allowed = await browser.post(first.form.action, { ...first.form.fields, decision: 'allow' });
      await exchange(allowed.headers.get('location')!, first.pkce.verifier);
      const again = await consentPage(browser, person, 'openid courses:read courses:write orders:read');
      assert.deepEqual(
        boxes(again.html).map((b) => b.value),
        ['courses:write', 'orders:read'],
        'only the new scopes are asked about',
      );
      const text = pageText(again.html);
      assert.match(text, /Already allowed .*See your courses, including drafts courses:read/);
      assert.match(text, /now also asks/);
      const res = await browser.post(again.form.action, {
        ...again.form.fields,
        grant_scope: 'courses:write',
        decision: 'allow',
      });
      const tokens = await exchange(res.headers.get('location')!, again.pkce.verifier);
      assert.equal(tokens.scope, 'openid courses:read courses:write');
      assert.equal((await consentRow(person.account.id))?.scopes, 'openid courses:read courses:write');
    });

    it('Read only on a step-up keeps what was allowed before and adds only the new read scopes', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const first = await consentPage(browser, person, 'openid courses:write');
      await browser.post(first.form.action, { ...first.form.fields, decision: 'allow' });
      const again = await consentPage(browser, person, 'openid courses:write orders:read school:write');
      const res = await browser.post(again.form.action, {
        ...again.form.fields,
        decision: 'allow-read-only',
      });
      const tokens = await exchange(res.headers.get('location')!, again.pkce.verifier);
      assert.equal(tokens.scope, 'openid courses:write orders:read');
    });

    it('confidential client: remembered consent covers only the scopes the person ticked', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const first = await consentPage(
        browser,
        person,
        'openid courses:read courses:write',
        pkcePair(),
        confidential.id,
      );
      const res = await browser.post(first.form.action, {
        ...first.form.fields,
        grant_scope: 'courses:read',
        decision: 'allow',
      });
      assert.equal(await codeScopes(res.headers.get('location')!), 'openid courses:read');
      assert.equal((await consentRow(person.account.id, confidential.id))?.scopes, 'openid courses:read');
      const silent = await browser.get(authorizeUrl('openid courses:read', pkcePair(), confidential.id));
      assert.equal(silent.status, 302, 'what was allowed goes straight through');
      assert.equal(await codeScopes(silent.headers.get('location')!), 'openid courses:read');
      const unticked = await browser.get(
        authorizeUrl('openid courses:read courses:write', pkcePair(), confidential.id),
      );
      assert.equal(unticked.status, 200, 'the unticked scope is asked about again');
      assert.deepEqual(
        boxes(await unticked.text()).map((b) => b.value),
        ['courses:write'],
      );
    });
  });
}
