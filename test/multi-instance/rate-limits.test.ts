/**
 * Issue 22: rate-limit counts live in each instance's memory and are shared through PostgreSQL
 * every RATE_LIMIT_FLUSH_MS. Two server processes together stay within the bound of docs/configuration.md "Rate limits":
 * limit + (N − 1) × what one instance admits for the key in two flush intervals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashSecret } from '../../src/crypto/tokens.js';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { PG_URL } from '../helpers/app.js';
import { authorizeViaPages, Browser, createPerson, insertTestClient, pkcePair } from '../helpers/flow.js';
import { type Cluster, startCluster } from './cluster.js';

const LIMIT = 4;
const TOKEN_LIMIT = 5;
const FLUSH_MS = 50;
const REDIRECT = 'http://127.0.0.1:9999/callback';

/** Waits until the windows of the real clock's minute have at least `seconds` left. */
async function roomInMinute(seconds: number): Promise<void> {
  const second = new Date().getSeconds();
  if (second > 60 - seconds) await sleep((61 - second) * 1000);
}

function register(at: string): Promise<number> {
  return fetch(`${at}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9999/cb'], client_name: 'Limited' }),
  }).then((response) => response.status);
}

describe('rate limits shared by two instances', { skip: PG_URL ? false : 'PostgreSQL not available' }, () => {
  let cluster: Cluster;
  let storage: Storage;
  before(async () => {
    cluster = await startCluster({
      RATE_LIMITS: 'on',
      RATE_LIMIT_REGISTER: String(LIMIT),
      RATE_LIMIT_TOKEN: String(TOKEN_LIMIT),
      RATE_LIMIT_FLUSH_MS: String(FLUSH_MS),
    });
    storage = await openStorage(cluster.databaseUrl);
  });
  after(async () => {
    await storage?.close();
    await cluster?.close();
  });

  /** Waits until the instances' flushes have put `hits` hits of `key` in the shared row. */
  async function flushed(hits: number, key = 'register:ip:127.0.0.1'): Promise<void> {
    for (const started = Date.now(); Date.now() - started < 10_000; await sleep(FLUSH_MS / 2)) {
      const row = await storage.db
        .selectFrom('rate_limits')
        .select('count')
        .where('key', '=', key)
        .executeTakeFirst();
      if (row?.count === hits) return;
    }
    assert.fail(`the shared row ${key} never reached ${hits} hits`);
  }

  it('registrations alternating between A and B: the two admit the limit, plus at most one hit the lag hides', async () => {
    // Windows are minutes of the real clock here: start well inside one.
    await roomInMinute(10);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push(await register(i % 2 === 0 ? cluster.a.url : cluster.b.url));
      // Each hit reaches the shared row before the other instance's next hit.
      await flushed(i + 1);
    }
    const admitted = statuses.filter((s) => s === 201).length;
    // Each instance alone would admit LIMIT (2 × LIMIT together); shared, they admit LIMIT, and
    // one instance can admit one more hit the other made since its own last flush.
    assert.ok(admitted >= LIMIT && admitted <= LIMIT + 1, `admitted ${admitted}: ${statuses.join(' ')}`);
    assert.deepEqual(statuses.slice(admitted), Array(10 - admitted).fill(429), statuses.join(' '));
  });

  it('junk naming a confidential client from 127.0.0.9 at A counts against that address at both instances, never against the client: its correct refresh at B is answered', async () => {
    // Issue 44, item 1: the client's own correct refresh, from another address, used to answer 429.
    const secret = 'a-secret-the-test-knows-0123456789abcdef';
    const client = await insertTestClient(storage.db, { confidential: true, redirectUris: [REDIRECT] });
    await storage.db
      .updateTable('clients')
      .set({ secret_hash: hashSecret(secret) })
      .where('id', '=', client.id)
      .execute();
    const person = await createPerson(storage.store);
    const own = (at: string) => new Browser(at, '127.0.0.4');
    const pkce = pkcePair();
    const redirect = await authorizeViaPages({
      baseUrl: cluster.a.url,
      browser: own(cluster.a.url),
      params: {
        client_id: client.id,
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: pkce.challenge,
      },
      email: person.email,
      password: person.password,
      decision: 'allow',
    });
    // Windows are minutes of the real clock: the client's two counted requests (this exchange and
    // the correct refresh at the end) and the junk between them must fall in one window.
    await roomInMinute(25);
    const issued = await own(cluster.b.url).post('/api/oauth/token', {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      code_verifier: pkce.verifier,
      redirect_uri: REDIRECT,
      client_id: client.id,
      client_secret: secret,
    });
    assert.equal(issued.status, 200, await issued.clone().text());
    const { refresh_token: refreshToken } = (await issued.json()) as { refresh_token: string };

    const junk = async (at: string) =>
      (
        await new Browser(at, '127.0.0.9').post('/api/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: client.id,
        })
      ).status;
    const atA: number[] = [];
    for (let i = 0; i < 20; i++) atA.push(await junk(cluster.a.url));
    assert.deepEqual(atA, [...Array(TOKEN_LIMIT).fill(401), ...Array(20 - TOKEN_LIMIT).fill(429)]);
    // B hears A's twenty through the shared table: its own first hit, then a flush, then 429.
    await flushed(20, 'token:ip:127.0.0.9');
    await junk(cluster.b.url);
    await flushed(21, 'token:ip:127.0.0.9');
    await sleep(FLUSH_MS * 4);
    assert.equal(await junk(cluster.b.url), 429, 'B counts A’s junk against 127.0.0.9');
    const correct = await own(cluster.b.url).post('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: client.id,
      client_secret: secret,
    });
    assert.equal(correct.status, 200, await correct.clone().text());
    // The client's row holds its own two requests (code, refresh) and nothing of the junk.
    await flushed(2, `token:client:${client.id}`);
  });
});
