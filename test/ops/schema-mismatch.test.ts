/**
 * Issue 49 §4: instances ran with `?schema=…`; a start without it must not migrate an empty second
 * installation into the default schema (nor fail on Kysely's `kysely_migration_lock`): it exits 2
 * naming the schemas that have schoolauth's tables and the `?schema=` to add.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { listenApp, newSchemaName, PG_URL } from '../helpers/app.js';
import { serverExit, startServer } from '../helpers/server-process.js';

describe('a PostgreSQL start without the ?schema= the data is in', {
  skip: PG_URL ? false : 'PostgreSQL not available',
}, () => {
  const database = `sa_mismatch_${newSchemaName()}`;
  let admin: pg.Client;
  const url = () => {
    const u = new URL(PG_URL!);
    u.pathname = `/${database}`;
    u.search = '';
    return u;
  };

  before(async () => {
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
  });
  after(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('exits 2 naming the schemas that hold schoolauth and the ?schema= to use; the default schema stays empty', async () => {
    for (const schema of ['auth', 'auth_old']) {
      const withSchema = url();
      withSchema.searchParams.set('schema', schema);
      const server = await listenApp({ DATABASE_URL: withSchema.toString() });
      await server.stop();
    }
    const plain = url();
    plain.password = 's3cret';
    const result = await serverExit({ DATABASE_URL: plain.toString() });
    assert.equal(result.code, 2, result.output);
    const masked = plain.toString().replace(':s3cret@', ':*****@');
    assert.equal(
      result.output,
      `schoolauth: invalid configuration:\n  - DATABASE_URL=${masked}: its default schema "public" has no schoolauth tables, but schemas "auth", "auth_old" of this database have them: add ?schema=<one of them> (e.g. ?schema=auth) to DATABASE_URL\n`,
    );
    const tables = await new pg.Client({ connectionString: url().toString() });
    await tables.connect();
    try {
      const { rows } = await tables.query(
        "select table_name from information_schema.tables where table_schema = 'public'",
      );
      assert.deepEqual(rows, [], 'nothing was created in the default schema');
    } finally {
      await tables.end();
    }
  });

  it('a new ?schema= (a typo?) starts, and its NEW DATABASE warning names the schemas that hold schoolauth', async () => {
    const typo = url();
    typo.searchParams.set('schema', 'auht');
    const server = await startServer({ DATABASE_URL: typo.toString() });
    await server.stop();
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('NEW DATABASE'));
    assert.ok(line, server.output());
    assert.match(
      (JSON.parse(line) as { msg: string }).msg,
      /NEW DATABASE: .*schema=auht had no schoolauth tables; .* Schemas "auth", "auth_old" of this database have schoolauth tables: if the data is there, use \?schema=auth\./,
    );
  });
});
