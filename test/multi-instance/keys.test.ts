import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PG_URL } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { type Cluster, startCluster } from './cluster.js';

async function kids(url: string): Promise<string[]> {
  const body = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as {
    keys: Array<{ kid: string }>;
  };
  return body.keys.map((k) => k.kid).sort();
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
}

describe('two instances on one PostgreSQL: signing keys', {
  skip: PG_URL ? false : 'PostgreSQL not available',
}, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster();
  });
  after(() => cluster.close());

  it('keys rotated while both run: both publish old and new key at once (NOTIFY, no restart)', async () => {
    const before = await kids(cluster.a.url);
    assert.equal(before.length, 1);
    assert.deepEqual(await kids(cluster.b.url), before);

    const rotated = await cli(cluster.databaseUrl, ['keys', 'rotate']);
    assert.equal(rotated.code, 0, rotated.stderr);
    const newKid = /new signing key (\S+)/.exec(rotated.stdout)![1]!;
    const expected = [...before, newKid].sort();
    // The fallback poll runs every 30 s: seeing it within 3 s means the notification did it.
    for (const server of [cluster.a, cluster.b]) {
      await eventually(async () => JSON.stringify(await kids(server.url)) === JSON.stringify(expected), 3000);
    }
  });
});
