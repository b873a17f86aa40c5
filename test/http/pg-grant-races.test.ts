/**
 * Every write to one grant at once, over two instances on one PostgreSQL (docs/security.md "Lock
 * order"): a refresh of the live token, its revocation (RFC 7009), Connected apps' Revoke and a
 * reuse of an old token in the family, all sent together, hundreds of times. Each takes the
 * grant's row first, so none deadlocks; none answers 5xx; and once they have all answered,
 * nothing of the grant is live, whichever came first: a revocation's answer is never followed by
 * a live token (a refresh that committed first is revoked with the rest; one that waited writes
 * nothing).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, PG_URL, type TestApp } from '../helpers/app.js';
import { Browser, createPerson, type Person, readForms } from '../helpers/flow.js';
import {
  exchangeCode,
  formBody,
  introspect,
  mintCode,
  type RegisteredClient,
  refresh,
  register,
  revoke,
  type TokenResponse,
  tokensFor,
} from '../helpers/oauth.js';
import { secondInstance } from '../ops/second-instance.js';

/** Lanes run side by side, each with its own person (Connected apps revokes per person). */
const LANES = 4;
const TRIALS_PER_LANE = 50;

interface Lane {
  readonly person: Person;
  readonly cookie: string;
  readonly csrf: string;
}

describe('refresh, revocation, Connected apps Revoke and reuse of one grant at once, on two instances [postgres]', {
  skip: PG_URL ? false : 'no PostgreSQL',
}, () => {
  let a: TestApp;
  let b: TestApp;
  let closeB: () => Promise<void>;
  let client: RegisteredClient;
  before(async () => {
    a = await createTestApp('postgres', { listen: true });
    const second = await secondInstance(a);
    b = { ...a, app: second.app };
    closeB = second.close;
    client = await register(a);
  });
  after(async () => {
    await closeB?.();
    await a?.close();
  });

  /** Signs the person in through the pages of A and reads Connected apps' CSRF token. */
  async function lane(): Promise<Lane> {
    const person = await createPerson(a.ctx.store);
    const browser = new Browser(a.url);
    const signIn = await browser.get('/signin?return_to=%2Faccount%2Fapps');
    const form = readForms(await signIn.text()).find((f) => f.fields.csrf_token !== undefined)!;
    const signedIn = await browser.post(form.action, {
      ...form.fields,
      email: person.email,
      password: person.password,
    });
    assert.equal(signedIn.status, 303);
    // The page offers Revoke once an app has a live grant.
    await tokensFor(a, client, person.account);
    const page = await (await browser.get('/account/apps')).text();
    const revokeForm = readForms(page).find((f) => f.action === '/account/apps/revoke');
    assert.ok(revokeForm, 'Connected apps offers Revoke');
    return { person, cookie: browser.cookieHeader()!, csrf: revokeForm.fields.csrf_token! };
  }

  const appsRevoke = (on: TestApp, l: Lane) =>
    on.app.inject({
      method: 'POST',
      url: '/account/apps/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: l.cookie },
      payload: formBody({ client_id: client.client_id, csrf_token: l.csrf }),
    });

  /** The grant's tokens that still work. */
  async function liveTokens(grantId: string): Promise<number> {
    const [access, refreshTokens, grant] = await Promise.all([
      a.ctx.db
        .selectFrom('access_tokens')
        .select('token_hash')
        .where('grant_id', '=', grantId)
        .where('revoked_at', 'is', null)
        .execute(),
      a.ctx.db
        .selectFrom('refresh_tokens')
        .select('token_hash')
        .where('grant_id', '=', grantId)
        .where('revoked_at', 'is', null)
        .execute(),
      a.ctx.db.selectFrom('grants').select('revoked_at').where('id', '=', grantId).executeTakeFirstOrThrow(),
    ]);
    return access.length + refreshTokens.length + (grant.revoked_at === null ? 1 : 0);
  }

  async function trial(l: Lane, n: number, problems: string[]): Promise<void> {
    const [x, y] = n % 2 === 0 ? [a, b] : [b, a];
    const minted = await mintCode(x, client, l.person.account);
    const grantId = minted.grantId;
    const first = (await exchangeCode(x, client, minted)).json() as TokenResponse;
    // R0 → R1 → R2: R2 is live, and R0 presented again is a reuse.
    const second = (await refresh(y, client, first.refresh_token)).json() as TokenResponse;
    const third = (await refresh(x, client, second.refresh_token)).json() as TokenResponse;
    const [refreshed, revoked, forgotten, reused] = await Promise.all([
      refresh(x, client, third.refresh_token),
      revoke(y, client, third.refresh_token),
      appsRevoke(n % 4 < 2 ? x : y, l),
      refresh(y, client, first.refresh_token),
    ]);
    const expect = (what: string, status: number, allowed: number[], body: string) => {
      if (!allowed.includes(status)) problems.push(`trial ${n}: ${what} answered ${status} ${body}`);
    };
    expect('the refresh', refreshed.statusCode, [200, 400], refreshed.body);
    expect('the revocation', revoked.statusCode, [200], revoked.body);
    expect("Connected apps' Revoke", forgotten.statusCode, [303], forgotten.body);
    expect('the reuse', reused.statusCode, [400], reused.body);
    const live = await liveTokens(grantId);
    if (live > 0) problems.push(`trial ${n}: ${live} live token(s) or grant after the revocations`);
    if (refreshed.statusCode === 200) {
      const token = (refreshed.json() as TokenResponse).access_token;
      if ((await introspect(y, client, token)).json().active !== false) {
        problems.push(`trial ${n}: the refreshed access token is still active`);
      }
    }
  }

  it(`${LANES * TRIALS_PER_LANE} trials: no 5xx, and nothing of the grant live once they have answered`, async () => {
    const lanes = await Promise.all(Array.from({ length: LANES }, () => lane()));
    const problems: string[] = [];
    await Promise.all(
      lanes.map(async (l, i) => {
        for (let n = 0; n < TRIALS_PER_LANE; n++) await trial(l, i * TRIALS_PER_LANE + n, problems);
      }),
    );
    assert.deepEqual(problems, []);
  });
});
