/**
 * Issue 22: rate-limit counts live in each instance's memory and are shared through PostgreSQL
 * every RATE_LIMIT_FLUSH_MS. Two server processes together stay within the bound of docs/configuration.md "Rate limits":
 * limit + (N − 1) × what one instance admits for the key in two flush intervals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { PG_URL } from '../helpers/app.js';
import { type Cluster, startCluster } from './cluster.js';

const LIMIT = 4;
const FLUSH_MS = 50;

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
      RATE_LIMIT_FLUSH_MS: String(FLUSH_MS),
    });
    storage = await openStorage(cluster.databaseUrl);
  });
  after(async () => {
    await storage?.close();
    await cluster?.close();
  });

  /** Waits until the instances' flushes have put `hits` hits of 127.0.0.1 in the shared row. */
  async function flushed(hits: number): Promise<void> {
    for (const started = Date.now(); Date.now() - started < 10_000; await sleep(FLUSH_MS / 2)) {
      const row = await storage.db
        .selectFrom('rate_limits')
        .select('count')
        .where('key', '=', 'register:ip:127.0.0.1')
        .executeTakeFirst();
      if (row?.count === hits) return;
    }
    assert.fail(`the shared row never reached ${hits} hits`);
  }

  it('registrations alternating between A and B: the two admit the limit, plus at most one hit the lag hides', async () => {
    // Windows are minutes of the real clock here: start well inside one.
    const second = new Date().getSeconds();
    if (second > 50) await sleep((61 - second) * 1000);
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
});
