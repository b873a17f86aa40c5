/**
 * Issue 19 §7: several instances started at the same moment on a new PostgreSQL database. Every
 * first-start step (schema, migrations, the first signing key, the demo school) is carried out
 * exactly once, and every instance comes up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStorage } from '../../src/storage/connect.js';
import { dropSchema, newSchemaName, PG_URL } from '../helpers/app.js';
import { startServer } from '../helpers/server-process.js';

describe('first start on PostgreSQL', { skip: PG_URL ? false : 'PostgreSQL not available' }, () => {
  it('three instances started together on a new schema all come up, with one demo school and owner and one signing key of each algorithm', async () => {
    const schema = newSchemaName();
    const databaseUrl = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
    const env = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '2', SEED_DEMO: 'on' };
    // Generous: three processes compiling TypeScript at once on a small, busy machine.
    const start = () => startServer(env, 240_000);
    const started = await Promise.allSettled([start(), start(), start()]);
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const storage = await openStorage(databaseUrl);
    try {
      const failures = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      assert.deepEqual(failures, [], 'every instance comes up');
      const accounts = await storage.db.selectFrom('accounts').select('email').execute();
      assert.deepEqual(
        accounts.map((a) => a.email),
        ['owner@demo.school'],
      );
      const schools = await storage.db.selectFrom('schools').select('slug').execute();
      assert.deepEqual(
        schools.map((s) => s.slug),
        ['demo'],
      );
      const keys = await storage.db
        .selectFrom('signing_keys')
        .select(['kid', 'alg', 'retired_at'])
        .orderBy('kid')
        .execute();
      assert.deepEqual(
        keys.map((k) => k.alg).sort(),
        ['ES256', 'EdDSA', 'RS256'],
        'one signing key of each algorithm, created once',
      );
      const printed = servers.filter((s) => s.output().includes('Demo school seeded'));
      assert.equal(printed.length, 1, 'one instance seeded the demo and printed its password');
      // Every instance signs with, and publishes, those keys.
      for (const server of servers) {
        const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as {
          keys: { kid: string }[];
        };
        assert.deepEqual(
          jwks.keys.map((k) => k.kid).sort(),
          keys.map((k) => k.kid),
        );
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await storage.close();
      await dropSchema(schema);
    }
  });
});
