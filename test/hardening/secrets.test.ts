/**
 * Issue 6 §5 and §6: after every flow has run, no issued token, code, client secret or password
 * appears in clear in any table, nor in the debug-level log output.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStorage } from '../../src/storage/connect.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { createPerson } from '../helpers/flow.js';
import { type IssuedSecrets, needles, runEveryFlow } from './every-flow.js';

for (const dialect of DIALECTS) {
  describe(`secrets stay secret [${dialect}]`, () => {
    let t: TestApp;
    let logs = '';
    const secrets: IssuedSecrets = { values: new Set() };
    before(async () => {
      const sink = new Writable({
        write(chunk, _enc, done) {
          logs += chunk.toString();
          done();
        },
      });
      t = await createTestApp(dialect, {
        listen: true,
        env: { LOG_LEVEL: 'debug', LOG_REQUESTS: 'all' },
        logStream: sink,
      });
      const person = await createPerson(t.ctx.store);
      await runEveryFlow(t.url, person, secrets);
    });
    after(() => t.close());

    it('no table holds an issued token, code, client secret or password in clear', async () => {
      // PostgreSQL: this app's schema only (introspection lists every schema's tables, other test
      // runs' included).
      const own = t.ctx.storage.schema;
      const tables = (await t.ctx.db.introspection.getTables()).filter(
        (table) => own === undefined || table.schema === own,
      );
      const found: string[] = [];
      const search = needles(secrets);
      for (const table of tables) {
        const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(
          t.ctx.db,
        );
        const text = JSON.stringify(rows.rows);
        for (const needle of search)
          if (text.includes(needle)) found.push(`${table.name} holds ${needle.slice(0, 12)}…`);
      }
      assert.ok(secrets.values.size >= 15, `the flows issued secrets (${secrets.values.size})`);
      assert.deepEqual(found, []);
    });

    it('debug logs of every flow contain no issued secret', () => {
      assert.ok(logs.length > 1000, 'debug logging was captured');
      const leaked = needles(secrets).filter((needle) => logs.includes(needle));
      assert.deepEqual(
        leaked.map((n) => `${n.slice(0, 12)}…`),
        [],
      );
    });
  });
}

describe('operator-created secrets', () => {
  it('an integration secret printed by `client create` is stored only as a hash', async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'sa-sec-')), 'db.sqlite')}`;
    assert.equal((await cli(url, ['migrate'])).code, 0);
    const created = await cli(url, [
      'client',
      'create',
      '--name',
      'Partner',
      '--redirect-uri',
      'https://partner.example.com/cb',
      '--confidential',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const secret = /sa_cs_[A-Za-z0-9_-]+/.exec(created.stdout)?.[0];
    assert.ok(secret, 'the secret is printed once');
    const storage = await openStorage(url);
    try {
      const rows = await storage.db.selectFrom('clients').selectAll().execute();
      assert.ok(!JSON.stringify(rows).includes(secret.slice('sa_cs_'.length)));
    } finally {
      await storage.close();
    }
  });
});
