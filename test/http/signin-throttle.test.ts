/**
 * Sign-in throttling under concurrency, through a real listening server (docs/security.md
 * "Sign-in throttling"). Clients leave from their own loopback addresses (127.0.N.x), so the
 * server sees one client IP per address; each test uses addresses of its own.
 * Password checks are counted by their audit rows: every checked attempt writes exactly one
 * `signin.success` or `signin.failure` row, and a throttled attempt writes none.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { passwordCheckQueue } from '../../src/crypto/password-check-queue.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { Browser, createPerson, type Person, pageText, readForm } from '../helpers/flow.js';

const LIMIT = 3;
const WRONG = 'not the password at all';

/** signin_throttle rows keyed by an email that starts with `prefix`. */
async function accountRows(t: TestApp, prefix: string): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('signin_throttle')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key', 'like', `signin:account:${prefix}%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** `count` sign-ins from `ip`, email `${prefix}${i}@example.com`, 50 at a time, with one form and its cookies. */
async function madeUpEmails(t: TestApp, ip: string, prefix: string, count: number): Promise<number[]> {
  const first = new Browser(t.url, ip);
  const form = readForm(await (await first.get('/signin')).text());
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 50) {
    const batch = Array.from({ length: Math.min(50, count - sent) }, (_, i) => {
      const browser = new Browser(t.url, ip);
      for (const [name, value] of first.cookies) browser.cookies.set(name, value);
      return browser.post(form.action, {
        ...form.fields,
        email: `${prefix}${sent + i}@example.com`,
        password: WRONG,
      });
    });
    for (const res of await Promise.all(batch)) {
      statuses.push(res.status);
      await res.body?.cancel();
    }
  }
  return statuses;
}

/** A browser at `ip` that has loaded the sign-in page (so it holds the form's CSRF cookie). */
async function browserAt(t: TestApp, ip: string, cookiesFrom?: Browser): Promise<SigninBrowser> {
  const browser = new Browser(t.url, ip);
  for (const [name, value] of cookiesFrom?.cookies ?? []) browser.cookies.set(name, value);
  const form = readForm(await (await browser.get('/signin')).text());
  return {
    browser,
    signIn: (email, password) => browser.post(form.action, { ...form.fields, email, password }),
  };
}

interface SigninBrowser {
  readonly browser: Browser;
  signIn(email: string, password: string): Promise<Response>;
}

/** Password checks made so far: for an account, or from a client IP. */
async function checks(t: TestApp, by: { accountId: string } | { ip: string }): Promise<number> {
  let query = t.ctx.db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', 'in', ['signin.success', 'signin.failure']);
  query = 'ip' in by ? query.where('ip', '=', by.ip) : query.where('account_id', '=', by.accountId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

function assertThrottled(response: Response, text: string): void {
  assert.equal(response.status, 429);
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600,
    `Retry-After ${retryAfter}`,
  );
  assert.match(pageText(text), /Too many failed sign-ins\. Wait/);
  assert.equal(
    response.headers.getSetCookie().some((c) => /schoolauth_session=/.test(c)),
    false,
  );
}

/**
 * Takes `count` password-check places (running, then waiting) with checks that last until
 * `release`: the server's real queue, held as a held transaction holds a connection.
 */
function holdPasswordChecks(t: TestApp, count: number): { release(): Promise<void> } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const queue = passwordCheckQueue(t.config);
  const held = Array.from({ length: count }, () => queue.tryRun(() => gate));
  assert.ok(
    held.every((check) => check !== undefined),
    'the queue had room for the held checks',
  );
  return {
    async release() {
      open();
      await Promise.all(held);
    },
  };
}

/** `count` concurrent sign-ins of `email` with a wrong password, from browsers at `ips` in turn. */
async function burst(t: TestApp, email: string, ips: readonly string[], count: number) {
  const browsers = await Promise.all(
    Array.from({ length: count }, (_, i) => browserAt(t, ips[i % ips.length]!)),
  );
  const responses = await Promise.all(browsers.map((b) => b.signIn(email, WRONG)));
  return Promise.all(responses.map(async (response) => ({ response, text: await response.text() })));
}

for (const dialect of DIALECTS) {
  describe(`sign-in throttling under concurrency [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, {
        listen: true,
        env: { RATE_LIMITS: 'on', RATE_LIMIT_SIGNIN: String(LIMIT) },
      });
    });
    after(() => t.close());

    it('a burst of 40 concurrent wrong passwords gets RATE_LIMIT_SIGNIN password checks; the rest are throttled at once', async () => {
      const person = await createPerson(t.ctx.store);
      const answers = await burst(t, person.email, ['127.0.1.1'], 40);
      assert.equal(answers.filter((a) => a.response.status === 200).length, LIMIT);
      for (const a of answers.filter((a) => a.response.status !== 200)) assertThrottled(a.response, a.text);
      assert.equal(await checks(t, { accountId: person.account.id }), LIMIT);
      const late = await (await browserAt(t, '127.0.1.2')).signIn(person.email, person.password);
      assertThrottled(late, await late.text());
    });

    it('a right password inside a burst is checked only within the limit; past it, it does not sign in', async () => {
      const person = await createPerson(t.ctx.store);
      const wrong = await Promise.all(Array.from({ length: 30 }, () => browserAt(t, '127.0.2.1')));
      const right = await browserAt(t, '127.0.2.2');
      const answers = await Promise.all([
        ...wrong.map((b) => b.signIn(person.email, WRONG)),
        right.signIn(person.email, person.password),
      ]);
      assert.ok(
        (await checks(t, { accountId: person.account.id })) <= LIMIT,
        'never more checks than the limit',
      );
      const mine = answers.at(-1)!;
      // Signed in only if its attempt was one of the first LIMIT counted, i.e. not past the limit.
      if (mine.status !== 303) assertThrottled(mine, await mine.text());
      const later = await (await browserAt(t, '127.0.2.3')).signIn(person.email, person.password);
      if (mine.status === 303) assert.equal(later.status, 303, 'a success cleared the account');
      else assertThrottled(later, await later.text());
    });

    it('bursts from several addresses are limited per account', async () => {
      const person = await createPerson(t.ctx.store);
      const ips = ['127.0.3.1', '127.0.3.2', '127.0.3.3', '127.0.3.4'];
      const answers = await burst(t, person.email, ips, 40);
      assert.equal(answers.filter((a) => a.response.status === 200).length, LIMIT);
      assert.equal(await checks(t, { accountId: person.account.id }), LIMIT);
      const fresh = await (await browserAt(t, '127.0.3.9')).signIn(person.email, person.password);
      assertThrottled(fresh, await fresh.text());
    });

    it('one address is limited across accounts (unknown emails included)', async () => {
      const ip = '127.0.4.1';
      const browsers = await Promise.all(Array.from({ length: 24 }, () => browserAt(t, ip)));
      await Promise.all(browsers.map((b, i) => b.signIn(`nobody-${i}@example.com`, WRONG)));
      assert.equal(await checks(t, { ip }), LIMIT);
      const person = await createPerson(t.ctx.store);
      const blocked = await (await browserAt(t, ip)).signIn(person.email, person.password);
      assertThrottled(blocked, await blocked.text());
      const elsewhere = await (await browserAt(t, '127.0.4.2')).signIn(person.email, person.password);
      assert.equal(elsewhere.status, 303, 'the account itself is not blocked');
    });

    it('an address that is blocked writes no throttle row for the emails it sends: 300 made-up emails, no new row', async () => {
      const ip = '127.0.4.3';
      assert.deepEqual(await madeUpEmails(t, ip, 'blocker-', LIMIT), Array(LIMIT).fill(200));
      assert.equal(await accountRows(t, 'blocker-'), LIMIT, 'made-up emails are counted like real ones');
      const flood = await madeUpEmails(t, ip, 'flood-', 300);
      assert.deepEqual(flood, Array(300).fill(429), 'the address is blocked');
      assert.equal(await accountRows(t, 'flood-'), 0, 'no row keyed by an email the blocked address sent');
    });

    it('a burst at a person’s account from an address that is blocked does not lock the account: the person signs in from elsewhere', async () => {
      const ip = '127.0.4.4';
      assert.deepEqual(await madeUpEmails(t, ip, 'blocker-b-', LIMIT), Array(LIMIT).fill(200));
      const person = await createPerson(t.ctx.store);
      const answers = await burst(t, person.email, [ip], 40);
      for (const a of answers) assertThrottled(a.response, a.text);
      const elsewhere = await (await browserAt(t, '127.0.4.5')).signIn(person.email, person.password);
      assert.equal(elsewhere.status, 303, 'the refused burst never counted against the account');
    });

    /** The owner signs in once from `ip`: that browser now holds a device cookie. */
    async function trustedBrowser(person: Person, ip: string): Promise<Browser> {
      const owner = await browserAt(t, ip);
      assert.equal((await owner.signIn(person.email, person.password)).status, 303);
      assert.ok(owner.browser.cookies.get('schoolauth_device'), 'a device cookie is set at sign-in');
      return owner.browser;
    }

    it('a browser that signed in before keeps its allowance while untrusted browsers are locked out', async () => {
      const person = await createPerson(t.ctx.store);
      const owner = await trustedBrowser(person, '127.0.5.1');
      await burst(t, person.email, ['127.0.5.2', '127.0.5.3'], 40);
      const stranger = await (await browserAt(t, '127.0.5.4')).signIn(person.email, person.password);
      assertThrottled(stranger, await stranger.text());
      const back = await (await browserAt(t, '127.0.5.1', owner)).signIn(person.email, person.password);
      assert.equal(back.status, 303, 'the owner signs in from their own browser');
      // Behind the attacker's address (one school NAT): the per-IP block does not apply to it.
      const nat = await (await browserAt(t, '127.0.5.2', owner)).signIn(person.email, person.password);
      assert.equal(nat.status, 303, 'and from the attacker’s address');
      const audit = await t.ctx.db
        .selectFrom('audit_events')
        .select('detail')
        .where('kind', '=', 'signin.success')
        .where('account_id', '=', person.account.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((row) => JSON.parse(row.detail).trusted_browser),
        [false, true, true],
      );
    });

    it('the device cookie is HttpOnly, SameSite=Lax, Path=/, long-lived, and holds no secret of the account', async () => {
      const person = await createPerson(t.ctx.store);
      const owner = await browserAt(t, '127.0.6.1');
      const res = await owner.signIn(person.email, person.password);
      const line = res.headers.getSetCookie().find((c) => c.startsWith('schoolauth_device='))!;
      assert.match(line, /; HttpOnly/i);
      assert.match(line, /; SameSite=Lax/i);
      assert.match(line, /; Path=\//i);
      assert.match(line, /; Max-Age=15552000/i);
      assert.doesNotMatch(line, /; Secure/i, 'http issuer');
      const value = owner.browser.cookies.get('schoolauth_device')!;
      assert.match(
        value,
        new RegExp(`^${person.account.id}\\.[A-Za-z0-9_-]{22}\\.\\d+\\.[A-Za-z0-9_-]{43}$`),
      );
      assert.ok(!value.includes(person.email) && !value.includes(person.password));
    });

    it('a forged, altered or other account’s device cookie gives no allowance', async () => {
      const person = await createPerson(t.ctx.store);
      const other = await createPerson(t.ctx.store);
      const owner = await trustedBrowser(person, '127.0.7.1');
      const otherBrowser = await trustedBrowser(other, '127.0.7.2');
      await burst(t, person.email, ['127.0.7.3'], 20);
      const genuine = owner.cookies.get('schoolauth_device')!;
      const [account, nonce, issuedAt, mac] = genuine.split('.') as [string, string, string, string];
      const flip = (s: string) => (s.endsWith('A') ? `${s.slice(0, -1)}B` : `${s.slice(0, -1)}A`);
      const forgeries = {
        'another account’s genuine cookie': otherBrowser.cookies.get('schoolauth_device')!,
        'an altered signature': `${account}.${nonce}.${issuedAt}.${flip(mac)}`,
        'another nonce': `${account}.${flip(nonce)}.${issuedAt}.${mac}`,
        'another account id with this signature': `${other.account.id}.${nonce}.${issuedAt}.${mac}`,
        garbage: 'not-a-device-cookie',
      };
      for (const [what, value] of Object.entries(forgeries)) {
        const browser = new Browser(t.url);
        browser.cookies.set('schoolauth_device', value);
        const res = await (await browserAt(t, '127.0.7.4', browser)).signIn(person.email, person.password);
        assert.equal(res.status, 429, what);
      }
      const res = await (await browserAt(t, '127.0.7.4', owner)).signIn(person.email, person.password);
      assert.equal(res.status, 303, 'the genuine cookie still works');
    });

    it('a trusted browser that keeps failing is locked out itself; the owner’s other browsers are not', async () => {
      const person = await createPerson(t.ctx.store);
      const laptop = await trustedBrowser(person, '127.0.8.1');
      const phone = await trustedBrowser(person, '127.0.8.2');
      await burst(t, person.email, ['127.0.8.3'], 20);
      const before = await checks(t, { accountId: person.account.id });
      const guesses = await Promise.all(
        Array.from({ length: 12 }, async () =>
          (await browserAt(t, '127.0.8.4', laptop)).signIn(person.email, WRONG),
        ),
      );
      assert.equal(guesses.filter((r) => r.status === 200).length, LIMIT, 'its own allowance, checked');
      assert.equal((await checks(t, { accountId: person.account.id })) - before, LIMIT);
      // Locked out, the cookie counts as untrusted, and untrusted browsers are locked out.
      const locked = await (await browserAt(t, '127.0.8.4', laptop)).signIn(person.email, person.password);
      assertThrottled(locked, await locked.text());
      const ok = await (await browserAt(t, '127.0.8.2', phone)).signIn(person.email, person.password);
      assert.equal(ok.status, 303);
    });

    it('a device cookie stops counting as trusted after its lifetime (180 days)', async () => {
      const person = await createPerson(t.ctx.store);
      const owner = await trustedBrowser(person, '127.0.9.1');
      t.clock.advance(180 * 24 * 3600);
      await burst(t, person.email, ['127.0.9.2'], 10);
      const res = await (await browserAt(t, '127.0.9.1', owner)).signIn(person.email, person.password);
      assertThrottled(res, await res.text());
    });
  });

  describe(`sign-in password checks are bounded process-wide [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, {
        listen: true,
        env: { RATE_LIMITS: 'on', RATE_LIMIT_SIGNIN: '1', SIGNIN_CONCURRENCY: '1', SIGNIN_QUEUE: '1' },
      });
    });
    after(() => t.close());

    it('with every check slot and queue place taken, a sign-in is answered 429 with Retry-After at once and counts nothing', async () => {
      const people = await Promise.all(Array.from({ length: 24 }, () => createPerson(t.ctx.store)));
      const browsers = await Promise.all(people.map((_, i) => browserAt(t, `127.0.10.${i + 1}`)));
      const answers = await Promise.all(browsers.map((b, i) => b.signIn(people[i]!.email, WRONG)));
      const busy = answers.flatMap((res, i) => (res.status === 429 ? [i] : []));
      assert.ok(busy.length > 0, 'some attempts found the queue full');
      assert.equal(busy.length + answers.filter((r) => r.status === 200).length, answers.length);
      for (const i of busy) {
        assert.equal(answers[i]!.headers.get('retry-after'), '1');
        assert.match(pageText(await answers[i]!.text()), /Too many sign-ins are being checked right now/);
      }
      // RATE_LIMIT_SIGNIN is 1: had a busy answer counted, account and address would be blocked now.
      for (const i of busy.slice(0, 3)) {
        const res = await browsers[i]!.signIn(people[i]!.email, people[i]!.password);
        assert.equal(res.status, 303, `attempt ${i} was not counted`);
      }
    });

    it('while checks are held up, a flood is answered busy without a check, and a person signs in as soon as they free up', async () => {
      const person = await createPerson(t.ctx.store);
      const held = holdPasswordChecks(t, 2); // SIGNIN_CONCURRENCY 1 + SIGNIN_QUEUE 1
      const attacker = new Browser(t.url);
      const form = readForm(await (await attacker.get('/signin')).text());
      const flood = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const browser = new Browser(t.url, `127.0.11.${i + 1}`);
          for (const [name, value] of attacker.cookies) browser.cookies.set(name, value);
          return browser.post(form.action, {
            ...form.fields,
            email: `flood-${i}@example.com`,
            password: WRONG,
          });
        }),
      );
      for (const res of flood) {
        assert.equal(res.status, 429);
        assert.equal(res.headers.get('retry-after'), '1');
      }
      const me = await browserAt(t, '127.0.11.100');
      const busy = await me.signIn(person.email, person.password);
      assert.equal(busy.status, 429, 'a person is answered at once too, not queued behind the flood');
      assert.equal(await checks(t, { ip: '127.0.11.1' }), 0, 'no flood attempt was checked');
      await held.release();
      assert.equal(
        (await me.signIn(person.email, person.password)).status,
        303,
        'signed in at the first retry',
      );
    });

    it('a sign-in answered busy leaves no throttle row: 60 made-up emails while checks are held up write none', async () => {
      const held = holdPasswordChecks(t, 2); // SIGNIN_CONCURRENCY 1 + SIGNIN_QUEUE 1
      try {
        const statuses = await madeUpEmails(t, '127.0.12.1', 'busy-', 60);
        assert.deepEqual(statuses, Array(60).fill(429), 'every attempt found the checks taken');
        assert.equal(await accountRows(t, 'busy-'), 0, 'the refunded attempts left no row behind');
      } finally {
        await held.release();
      }
    });
  });

  describe(`device cookie on an https issuer [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { env: { ISSUER: 'https://auth.example.com', RATE_LIMITS: 'on' } });
    });
    after(() => t.close());

    it('is Secure with the __Host- prefix, and is read back under that name', async () => {
      const person = await createPerson(t.ctx.store);
      const page = await t.app.inject({ method: 'GET', url: '/signin' });
      const signin = page.cookies.find((c) => c.name === '__Host-schoolauth_signin')!;
      const form = readForm(page.body);
      const post = (cookies: Record<string, string>, password: string) =>
        t.app.inject({
          method: 'POST',
          url: '/signin',
          cookies: { [signin.name]: signin.value, ...cookies },
          payload: { ...form.fields, email: person.email, password },
        });
      const res = await post({}, person.password);
      assert.equal(res.statusCode, 303);
      const device = res.cookies.find((c) => c.name === '__Host-schoolauth_device')!;
      assert.ok(device, 'device cookie');
      assert.deepEqual(
        [device.secure, device.httpOnly, device.sameSite, device.path, device.domain, device.maxAge],
        [true, true, 'Lax', '/', undefined, 180 * 24 * 3600],
      );
      for (let i = 0; i < 10; i++) await post({}, WRONG);
      assert.equal((await post({}, person.password)).statusCode, 429, 'untrusted: locked out');
      assert.equal((await post({ [device.name]: device.value }, person.password)).statusCode, 303);
    });
  });
}
