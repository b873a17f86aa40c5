/**
 * Issue 23 §3: a redeploy under load. Two instances on one PostgreSQL behind the test's balancer
 * (one ISSUER: the balancer's URL) are restarted one after the other with SIGTERM while agents
 * keep signing in, exchanging, calling the API and refreshing through the balancer. Each instance
 * finishes what it accepted and exits 0 within SHUTDOWN_TIMEOUT; no client request fails.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStorage } from '../../src/storage/connect.js';
import { dropSchema, freePort, newSchemaName, PG_URL } from '../helpers/app.js';
import { Balancer } from '../helpers/balancer.js';
import { createPerson } from '../helpers/flow.js';
import { assertNothingHalfWritten } from '../helpers/integrity.js';
import { Load } from '../helpers/load.js';
import { registerClient } from '../helpers/remote-client.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait.js';

const REDIRECT = 'http://127.0.0.1:9999/callback';
const SHUTDOWN_TIMEOUT = 10;

describe('a redeploy under load', { skip: PG_URL ? false : 'PostgreSQL not available' }, () => {
  it('SIGTERM to each of two instances in turn behind a balancer: each exits 0 in time, no client request fails', async (t) => {
    const schema = newSchemaName();
    const databaseUrl = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
    const ports = [await freePort(), await freePort()];
    const balancer = await new Balancer(ports).start();
    const env = {
      DATABASE_URL: databaseUrl,
      ISSUER: balancer.url,
      DATABASE_POOL_SIZE: '4',
      SHUTDOWN_TIMEOUT: String(SHUTDOWN_TIMEOUT),
    };
    const servers: ServerProcess[] = [];
    t.after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await balancer.close();
      await dropSchema(schema);
    });
    const start = async (i: number) => {
      servers[i] = await startServer({ ...env, PORT: String(ports[i]) });
    };
    await Promise.all([start(0), start(1)]);
    const storage = await openStorage(databaseUrl);
    t.after(() => storage.close());
    const person = await createPerson(storage.store);
    const clientId = await registerClient(balancer.url, REDIRECT, 'Redeploy agent');
    const load = new Load({
      targets: [balancer.url],
      clientId,
      redirectUri: REDIRECT,
      person,
      agents: 3,
    }).start();
    t.after(() => load.stop());
    await waitFor('load issues tokens', () => load.issued.length >= 4, 30_000);

    for (const i of [0, 1]) {
      const before = load.issued.length;
      const signalled = Date.now();
      servers[i]!.child.kill('SIGTERM');
      const code = await servers[i]!.exited;
      const took = Date.now() - signalled;
      assert.equal(code, 0, `instance ${i} exits 0: ${servers[i]!.output()}`);
      assert.ok(took < SHUTDOWN_TIMEOUT * 1000, `instance ${i} stopped within SHUTDOWN_TIMEOUT (${took} ms)`);
      await start(i);
      await waitFor('tokens issued after the restart', () => load.issued.length > before, 30_000);
    }
    await load.stop();

    const failed = load.outcomes.filter((o) => o.status === 0 || o.status >= 500);
    assert.deepEqual(
      failed.map((o) => `${o.kind} ${o.status} ${o.error ?? ''}`),
      [],
      `no client request fails (${load.outcomes.length} sent; ${load.summary()})`,
    );
    assert.ok(
      load.outcomes.every((o) => o.status < 400),
      load.summary(),
    );
    await assertNothingHalfWritten(storage.db);
  });
});
