/**
 * Issue 19 §7: several instances started at the same moment on a new PostgreSQL database. Every
 * first-start step (schema, migrations, the first signing key) is carried out exactly once, and
 * every instance comes up. No demo school: on PostgreSQL only `schoolauth demo` seeds it, so a first
 * start never fills what is meant as the production database.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStorage } from '../../src/storage/connect.js';
import { dropSchema, newSchemaName, PG_URL } from '../helpers/app.js';
import { startServer } from '../helpers/server-process.js';

describe('first start on PostgreSQL', { skip: PG_URL ? false : 'PostgreSQL not available' }, () => {
  it('three instances started together on a new schema all come up, with one signing key of each algorithm and no demo school', async () => {
    const schema = newSchemaName();
    const databaseUrl = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
    // SEED_DEMO as an operator leaves it: unset (the helper's own default is off).
    const env = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '2', SEED_DEMO: '' };
    // Generous: three processes compiling TypeScript at once on a small, busy machine.
    const start = () => startServer(env, 240_000);
    const started = await Promise.allSettled([start(), start(), start()]);
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const storage = await openStorage(databaseUrl);
    try {
      const failures = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      assert.deepEqual(failures, [], 'every instance comes up');
      const accounts = await storage.db.selectFrom('accounts').select('email').execute();
      assert.deepEqual(accounts, [], 'no demo owner on PostgreSQL');
      const schools = await storage.db.selectFrom('schools').select('slug').execute();
      assert.deepEqual(schools, [], 'no demo school on PostgreSQL');
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
      assert.equal(printed.length, 0, 'no instance printed a demo password');
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
