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
  readForms,
} from '../helpers/flow.js';

const REDIRECT = 'http://127.0.0.1:4711/callback';

function assertPageHeaders(headers: Headers, what: string): void {
  assert.equal(headers.get('x-frame-options'), 'DENY', what);
  const csp = headers.get('content-security-policy') ?? '';
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.match(csp, /default-src 'none'/, what);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, what);
  assert.equal(headers.get('referrer-policy'), 'no-referrer', what);
  assert.equal(headers.get('cache-control'), 'no-store', what);
  assert.match(headers.get('content-type') ?? '', /^text\/html; charset=utf-8/, what);
}

for (const dialect of DIALECTS) {
  describe(`pages, sessions and CSRF [${dialect}]`, () => {
    let t: TestApp;
    let client: Client;
    let person: Person;
    before(async () => {
      t = await createTestApp(dialect, {
        listen: true,
        env: { SESSION_TTL: '600', SESSION_ABSOLUTE_TTL: '2000' },
      });
      client = await insertTestClient(t.ctx.db, {
        name: '<b>Maths</b> & "CLI"',
        redirectUris: ['http://127.0.0.1/callback'],
      });
      person = await createPerson(t.ctx.store);
    });
    after(() => t.close());

    const authorizeUrl = (extra: Record<string, string> = {}) =>
      `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        code_challenge_method: 'S256',
        client_id: client.id,
        redirect_uri: REDIRECT,
        scope: 'openid courses:read orders:read',
        code_challenge: pkcePair().challenge,
        state: 's',
        ...extra,
      })}`;

    /** Signs in through the authorization flow's sign-in page; returns the consent page HTML. */
    async function signInToConsent(browser: Browser, extra: Record<string, string> = {}): Promise<string> {
      const page = await browser.get(authorizeUrl(extra));
      const form = readForm(await page.text());
      const res = await browser.post(form.action, {
        ...form.fields,
        email: person.email,
        password: person.password,
      });
      assert.equal(res.status, 200);
      return res.text();
    }

    it('sign-in, consent and error pages send the anti-framing, CSP, referrer and no-store headers', async () => {
      const browser = new Browser(t.url);
      const signIn = await browser.get(authorizeUrl());
      assertPageHeaders(signIn.headers, 'sign-in');
      // CSP form-action also covers the redirect after the form post: our origin and the verified client's.
      assert.match(
        signIn.headers.get('content-security-policy')!,
        /form-action 'self' http:\/\/127\.0\.0\.1:4711(;|$)/,
      );
      const consentHtml = await signInToConsent(new Browser(t.url));
      assert.equal(readForm(consentHtml).fields.step, 'consent');
      const consent = await browser.get(authorizeUrl());
      await consent.text();
      const error = await browser.get('/oauth/authorize?client_id=nope');
      assert.equal(error.status, 400);
      assertPageHeaders(error.headers, 'error');
      const standalone = await browser.get('/signin');
      assertPageHeaders(standalone.headers, '/signin');
    });

    it('pages use no script or inline style; the stylesheet is a same-origin asset', async () => {
      const browser = new Browser(t.url);
      const html = await signInToConsent(browser);
      for (const page of [html, await (await new Browser(t.url).get(authorizeUrl())).text()]) {
        assert.doesNotMatch(page, /<script|\sstyle=|<style|\son\w+=/i);
        assert.match(page, /<link rel="stylesheet" href="\/assets\/pages.css">/);
        assert.match(page, /<meta name="viewport"/);
      }
      const css = await browser.get('/assets/pages.css');
      assert.equal(css.status, 200);
      assert.match(css.headers.get('content-type')!, /^text\/css/);
    });

    it('the consent page names the client (escaped), its kind, the destination and the scopes by area', async () => {
      const html = await signInToConsent(new Browser(t.url));
      assert.ok(
        html.includes('&lt;b&gt;Maths&lt;/b&gt; &amp; &quot;CLI&quot;'),
        'client name is HTML-escaped',
      );
      assert.ok(!html.includes('<b>Maths</b>'));
      const text = pageText(html);
      assert.match(text, /Self-registered · not verified/);
      assert.match(text, /127\.0\.0\.1:4711/);
      assert.match(text, /Your identity and account .*Confirm who you are/);
      assert.match(text, /Courses .*See your courses, including drafts/);
      assert.match(text, /Sales and payments .*See orders and payments/);
      const form = readForm(html);
      assert.deepEqual(
        form.buttons.map((b) => [b.label, b.value]),
        [
          ['Allow', 'allow'],
          ['Deny', 'deny'],
        ],
      );
    });

    it('the sign-in page marks a self-registered app "not verified", as consent does', async () => {
      const html = await (await new Browser(t.url).get(authorizeUrl())).text();
      assert.equal(readForm(html).fields.step, 'signin');
      assert.match(pageText(html), /to continue to <b>Maths<\/b> & "CLI" Self-registered · not verified/);
    });

    it('a registered integration is labelled as such', async () => {
      const integration = await insertTestClient(t.ctx.db, {
        kind: 'integration',
        name: 'Partner',
        redirectUris: ['https://partner.example.com/cb'],
      });
      const browser = new Browser(t.url);
      await signInToConsent(browser);
      const res = await browser.get(
        authorizeUrl({ client_id: integration.id, redirect_uri: 'https://partner.example.com/cb' }),
      );
      const text = pageText(await res.text());
      assert.match(text, /Registered integration/);
      assert.match(text, /you will be sent to the website partner\.example\.com \./);
      assert.doesNotMatch(text, /\(\s*https\s*\)/, 'no stray "( https )"');
      const signIn = await new Browser(t.url).get(
        authorizeUrl({ client_id: integration.id, redirect_uri: 'https://partner.example.com/cb' }),
      );
      const signInText = pageText(await signIn.text());
      assert.match(signInText, /to continue to Partner Registered integration/);
      assert.doesNotMatch(signInText, /not verified/);
    });

    it('the consent page names the schools whose data school scopes reach, with the person’s role', async () => {
      const browser = new Browser(t.url);
      let text = pageText(await signInToConsent(browser));
      const [membership] = await t.ctx.db
        .selectFrom('memberships')
        .innerJoin('schools', 'schools.id', 'memberships.school_id')
        .select(['schools.slug', 'schools.name'])
        .where('account_id', '=', person.account.id)
        .execute();
      assert.ok(
        text.includes(
          `With school data it acts as you in ${membership!.name} ( ${membership!.slug} , owner).`,
        ),
        text,
      );
      const second = await createPerson(t.ctx.store, { school: membership!.slug });
      await t.ctx.db
        .insertInto('schools')
        .values({
          id: 'sch_other',
          slug: 'other',
          name: 'Other Academy',
          description: '',
          settings: '{}',
          appearance: '{}',
          created_at: 0,
          updated_at: 0,
        })
        .execute();
      await t.ctx.db
        .insertInto('memberships')
        .values({ account_id: second.account.id, school_id: 'sch_other', role: 'owner', created_at: 0 })
        .execute();
      const other = new Browser(t.url);
      const page = readForm(await (await other.get(authorizeUrl())).text());
      const res = await other.post(page.action, {
        ...page.fields,
        email: second.email,
        password: second.password,
      });
      text = pageText(await res.text());
      assert.ok(
        text.includes(
          `With school data it acts as you in Other Academy ( other , owner) and ${membership!.name} ( ${membership!.slug} , admin).`,
        ),
        text,
      );
      // Only account scopes: no school is named.
      const own = pageText(
        await (await browser.get(authorizeUrl({ scope: 'openid profile', prompt: 'consent' }))).text(),
      );
      assert.doesNotMatch(own, /With school data/);
    });

    it('"Not you? Sign in as someone else" ends the session and asks for a sign-in for the same request', async () => {
      const browser = new Browser(t.url);
      const consent = await signInToConsent(browser);
      const forms = readForms(consent);
      assert.equal(forms.length, 2);
      const switchForm = forms[1]!;
      assert.equal(switchForm.fields.step, 'switch');
      assert.deepEqual(
        switchForm.buttons.map((b) => b.label),
        ['Not you? Sign in as someone else'],
      );
      // Without the session's token nothing changes.
      const forged = await browser.post(switchForm.action, { ...switchForm.fields, csrf_token: 'forged' });
      assert.equal(forged.status, 403);
      assert.ok(browser.cookies.has('schoolauth_session'));
      const res = await browser.post(switchForm.action, switchForm.fields);
      assert.equal(res.status, 200);
      const signIn = await res.text();
      assert.equal(readForm(signIn).fields.step, 'signin');
      assert.equal(readForm(signIn).fields.client_id, client.id);
      assert.equal(browser.cookies.has('schoolauth_session'), false, 'the session cookie is cleared');
      const other = await createPerson(t.ctx.store);
      const next = await browser.post(readForm(signIn).action, {
        ...readForm(signIn).fields,
        email: other.email,
        password: other.password,
      });
      assert.match(
        pageText(await next.text()),
        new RegExp(`Signed in as ${other.email.replace('.', '\\.')}`),
      );
      const events = await t.ctx.db
        .selectFrom('audit_events')
        .select('kind')
        .where('account_id', '=', person.account.id)
        .where('kind', '=', 'signout')
        .execute();
      assert.ok(events.length >= 1, 'the sign-out is audited');
    });

    it('after a wrong password the password field takes the focus and names the error', async () => {
      const browser = new Browser(t.url);
      const first = await (await browser.get(authorizeUrl())).text();
      assert.doesNotMatch(first, /autofocus/);
      const form = readForm(first);
      const res = await browser.post(form.action, {
        ...form.fields,
        email: person.email,
        password: 'wrong password',
      });
      const html = await res.text();
      assert.match(html, /<p class="alert" id="signin-error" role="alert">/);
      assert.match(
        html,
        /<input id="password" name="password" type="password" autocomplete="current-password" required autofocus aria-describedby="signin-error" aria-invalid="true">/,
      );
      assert.equal((html.match(/autofocus/g) ?? []).length, 1);
    });

    it('error pages show the request id a person can quote', async () => {
      const res = await new Browser(t.url).get('/oauth/authorize?client_id=nope');
      assert.equal(res.status, 400);
      const id = res.headers.get('x-request-id')!;
      assert.ok(id);
      assert.ok(pageText(await res.text()).includes(`Reference: ${id} — quote it if you ask for help`));
      const expired = await new Browser(t.url).post('/signin', { email: 'x@example.com', password: 'x' });
      assert.equal(expired.status, 403);
      assert.ok(pageText(await expired.text()).includes(`Reference: ${expired.headers.get('x-request-id')}`));
    });

    it('the sign-in form is refused without its CSRF token, with a wrong one, or with another browser’s', async () => {
      const browser = new Browser(t.url);
      const form = readForm(await (await browser.get(authorizeUrl())).text());
      const creds = { email: person.email, password: person.password };
      const other = new Browser(t.url);
      const otherForm = readForm(await (await other.get(authorizeUrl())).text());
      for (const token of [undefined, 'forged', otherForm.fields.csrf_token!]) {
        const fields: Record<string, string> = { ...form.fields, ...creds };
        if (token === undefined) delete fields.csrf_token;
        else fields.csrf_token = token;
        const res = await browser.post(form.action, fields);
        assert.equal(res.status, 403, String(token));
        assert.match(pageText(await res.text()), /expired/);
        assert.equal(browser.cookies.has('schoolauth_session'), false);
      }
      // Without the pre-session cookie the token is worthless too.
      const fresh = new Browser(t.url);
      const res = await fresh.post(form.action, { ...form.fields, ...creds });
      assert.equal(res.status, 403);
    });

    it('the consent form is refused without the session’s CSRF token: no code is issued', async () => {
      const browser = new Browser(t.url);
      const form = readForm(await signInToConsent(browser));
      const res = await browser.post(form.action, {
        ...form.fields,
        csrf_token: 'forged',
        decision: 'allow',
      });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get('location'), null);
      // Another person's valid token does not open this person's consent.
      const otherPerson = await createPerson(t.ctx.store);
      const other = new Browser(t.url);
      const otherForm = readForm(await (await other.get(authorizeUrl())).text());
      const consent = readForm(
        await (
          await other.post(otherForm.action, {
            ...otherForm.fields,
            email: otherPerson.email,
            password: otherPerson.password,
          })
        ).text(),
      );
      const cross = await browser.post(form.action, {
        ...form.fields,
        csrf_token: consent.fields.csrf_token!,
        decision: 'allow',
      });
      assert.equal(cross.status, 403);
    });

    it('session cookie: HttpOnly, SameSite=Lax, Path=/, no Secure on an http issuer; the value is stored only hashed', async () => {
      const browser = new Browser(t.url);
      const page = await browser.get(authorizeUrl());
      const form = readForm(await page.text());
      const res = await browser.post(form.action, {
        ...form.fields,
        email: person.email,
        password: person.password,
      });
      const line = res.headers.getSetCookie().find((c) => c.startsWith('schoolauth_session='))!;
      assert.ok(line, 'a session cookie is set');
      assert.match(line, /; HttpOnly/i);
      assert.match(line, /; SameSite=Lax/i);
      assert.match(line, /; Path=\//i);
      assert.doesNotMatch(line, /; Secure/i);
      const value = browser.cookies.get('schoolauth_session')!;
      assert.match(value, /^sa_ss_/);
      const rows = await t.ctx.db
        .selectFrom('sessions')
        .selectAll()
        .where('account_id', '=', person.account.id)
        .execute();
      assert.ok(rows.some((r) => r.id_hash === hashSecret(value)));
      assert.ok(rows.every((r) => !JSON.stringify(r).includes(value)));
    });

    it('the session id is rotated at sign-in and the old one stops working', async () => {
      const browser = new Browser(t.url);
      await signInToConsent(browser);
      const first = browser.cookies.get('schoolauth_session')!;
      const again = await browser.get(authorizeUrl({ prompt: 'login' }));
      const form = readForm(await again.text());
      await browser.post(form.action, { ...form.fields, email: person.email, password: person.password });
      const second = browser.cookies.get('schoolauth_session')!;
      assert.notEqual(second, first);
      const stale = new Browser(t.url);
      stale.cookies.set('schoolauth_session', first);
      const res = await stale.get('/account/apps');
      assert.equal(res.status, 303);
    });

    it('an idle session ends after SESSION_TTL; activity keeps it alive', async () => {
      const browser = new Browser(t.url);
      await signInToConsent(browser);
      t.clock.advance(500);
      assert.equal((await browser.get('/account/apps')).status, 200, 'used within the idle window');
      t.clock.advance(500);
      assert.equal((await browser.get('/account/apps')).status, 200, 'the window restarted');
      t.clock.advance(601);
      assert.equal((await browser.get('/account/apps')).status, 303, 'idle too long');
    });

    it('a session ends SESSION_ABSOLUTE_TTL after sign-in however active it is', async () => {
      const browser = new Browser(t.url);
      await signInToConsent(browser);
      for (let i = 0; i < 6; i++) {
        t.clock.advance(300);
        assert.equal((await browser.get('/account/apps')).status, 200);
      }
      t.clock.advance(201);
      const res = await browser.get('/account/apps');
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/signin?return_to=%2Faccount%2Fapps');
    });

    it('a session ends when its account is disabled', async () => {
      const someone = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const form = readForm(await (await browser.get('/signin')).text());
      await browser.post(form.action, { ...form.fields, email: someone.email, password: someone.password });
      assert.equal((await browser.get('/account/apps')).status, 200);
      await updateAccount(t.ctx.db, someone.account.id, { disabled: 1 }, t.clock.now());
      assert.equal((await browser.get('/account/apps')).status, 303);
      const left = await t.ctx.db
        .selectFrom('sessions')
        .select('id_hash')
        .where('account_id', '=', someone.account.id)
        .execute();
      assert.equal(left.length, 0, 'the session row is deleted');
    });

    it('sign out ends the session; it needs the CSRF token', async () => {
      const browser = new Browser(t.url);
      await signInToConsent(browser);
      const apps = await (await browser.get('/account/apps')).text();
      const signOut = readForm(apps, '/signout');
      assert.equal((await browser.post('/signout', { csrf_token: 'forged' })).status, 403);
      assert.equal((await browser.get('/account/apps')).status, 200);
      const res = await browser.post('/signout', signOut.fields);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/signin?done=signed-out');
      assert.equal(browser.cookies.has('schoolauth_session'), false);
      const landing = await browser.get(res.headers.get('location')!);
      assert.match(
        pageText(await landing.text()),
        /^School platform Sign in Sign in to your school account\. You have signed out\./,
      );
      assert.equal((await browser.get('/account/apps')).status, 303);
    });

    it('/signin returns only to a local path', async () => {
      for (const [returnTo, expected] of [
        ['/account/apps', '/account/apps'],
        ['//evil.example.com/x', '/account/apps'],
        ['https://evil.example.com/', '/account/apps'],
        ['/\\evil.example.com', '/account/apps'],
      ]) {
        const browser = new Browser(t.url);
        const page = await browser.get(`/signin?return_to=${encodeURIComponent(returnTo!)}`);
        const form = readForm(await page.text());
        const res = await browser.post(form.action, {
          ...form.fields,
          return_to: returnTo!,
          email: person.email,
          password: person.password,
        });
        assert.equal(res.status, 303);
        assert.equal(res.headers.get('location'), expected);
      }
    });

    it('the consent step after the session expired shows sign-in again and keeps the request', async () => {
      const browser = new Browser(t.url);
      const form = readForm(await signInToConsent(browser));
      t.clock.advance(601);
      const res = await browser.post(form.action, { ...form.fields, decision: 'allow' });
      assert.equal(res.status, 200);
      const signIn = readForm(await res.text());
      assert.equal(signIn.fields.step, 'signin');
      assert.equal(signIn.fields.client_id, client.id);
      const url = await authorizeViaPages({
        baseUrl: t.url,
        params: {
          client_id: client.id,
          redirect_uri: REDIRECT,
          scope: 'openid',
          code_challenge: pkcePair().challenge,
        },
        email: person.email,
        password: person.password,
        decision: 'allow',
        browser,
      });
      assert.ok(url.searchParams.get('code'));
    });
  });

  describe(`cookies on an https issuer [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { env: { ISSUER: 'https://auth.example.com' } });
    });
    after(() => t.close());

    it('cookies are Secure with the __Host- prefix', async () => {
      const person = await createPerson(t.ctx.store);
      const page = await t.app.inject({ method: 'GET', url: '/signin' });
      const signinCookie = page.cookies.find((c) => c.name === '__Host-schoolauth_signin')!;
      assert.ok(signinCookie, 'pre-session CSRF cookie');
      assert.equal(signinCookie.secure, true);
      const form = readForm(page.body);
      const res = await t.app.inject({
        method: 'POST',
        url: '/signin',
        cookies: { [signinCookie.name]: signinCookie.value },
        payload: { ...form.fields, email: person.email, password: person.password },
      });
      assert.equal(res.statusCode, 303);
      const session = res.cookies.find((c) => c.name === '__Host-schoolauth_session')!;
      assert.ok(session, 'session cookie');
      assert.equal(session.secure, true);
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Lax');
      assert.equal(session.path, '/');
      assert.equal(session.domain, undefined);
    });
  });
}
