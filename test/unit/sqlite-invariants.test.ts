/**
 * The invariants the SQLite machinery rests on (src/storage/sqlite/README.md), checked against the
 * schema every migration builds and the SQL the app runs through a full flow: group commit replays
 * writes, so they must be deterministic; change stamps trust that an UPDATE touches its own table
 * only and that they understand every write; what the driver cannot do answers a clear error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { writeScope } from '../../src/storage/sqlite/change-stamps.js';
import { nondeterminism } from '../../src/storage/sqlite/deterministic.js';
import { preparedStatements } from '../../src/storage/sqlite/driver.js';
import { call, seedDemo } from '../helpers/api.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, createPerson, pkcePair } from '../helpers/flow.js';
import {
  introspect,
  postForm,
  type RegisteredClient,
  register,
  registerConfidential,
  revoke,
} from '../helpers/oauth.js';
import { bearer } from '../helpers/tokens.js';

// biome-ignore lint/suspicious/noExplicitAny: scratch tables and sqlite_master are not part of Database
type Db = Kysely<any>;

describe('SQLite driver: what it does not support answers a clear error', () => {
  let storage: Storage;
  let db: Db;

  before(async () => {
    storage = await openStorage('sqlite::memory:');
    db = storage.db as Db;
    await sql`create table items (id integer primary key, name text)`.execute(db);
  });
  after(() => storage.close());

  it('refuses a savepoint, as Kysely asks for one or as SQL, naming group commit as the reason', async () => {
    const trx = await db.startTransaction().execute();
    await assert.rejects(
      trx.savepoint('nested').execute(),
      /savepoints are not supported by the SQLite driver: .*group commit/,
    );
    await trx.rollback().execute();
    for (const statement of [sql`savepoint nested`, sql`release nested`, sql`rollback to nested`]) {
      await assert.rejects(
        db.transaction().execute((t) => statement.execute(t)),
        /savepoints are not supported by the SQLite driver/,
      );
    }
  });

  it('refuses streaming, naming why, instead of holding the connection', async () => {
    const stream = db.selectFrom('items').selectAll().stream();
    await assert.rejects(
      (async () => {
        for await (const _ of stream) assert.fail('a row was streamed');
      })(),
      /streaming \(\.stream\(\)\) is not supported by the SQLite driver: .*connection/,
    );
  });

  it('refuses a nondeterministic write when it is prepared, in or outside a transaction, and allows such reads', async () => {
    const writes = [
      sql`insert into items (name) values (random())`,
      sql`insert into items (name) values (hex(randomblob(4)))`,
      sql`insert into items (name) values (CURRENT_TIMESTAMP)`,
      sql`insert into items (name) values (current_date)`,
      sql`update items set name = datetime('now')`,
      sql`update items set name = julianday('NOW')`,
      sql`update items set name = unixepoch()`,
      sql`update items set name = strftime('%s')`,
      sql`update items set name = changes()`,
      sql`update items set name = last_insert_rowid()`,
    ];
    for (const write of writes) {
      const text = write.compile(db).sql;
      await assert.rejects(write.execute(db), /SQLite write not deterministic/, text);
      await assert.rejects(
        db.transaction().execute((t) => write.execute(t)),
        /SQLite write not deterministic/,
        text,
      );
    }
    const { rows } = await sql<{ r: number }>`select random() as r`.execute(db);
    assert.equal(typeof rows[0]!.r, 'number');
    // A name that only looks like one of those functions is fine.
    await sql`insert into items (name) values ('random() now current_time')`.execute(db);
  });
});

describe('SQLite schema after every migration', () => {
  let storage: Storage;
  let db: Db;
  let tables: string[];

  before(async () => {
    storage = await openStorage('sqlite::memory:');
    db = storage.db as Db;
    await migrateToLatest(db);
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
    tables = rows.map((row) => row.name);
  });
  after(() => storage.close());

  it('has no trigger: a write changes only what its statement names (change stamps, cached bearer rows)', async () => {
    const { rows } = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'trigger'`.execute(db);
    assert.deepEqual(rows, []);
  });

  it('has no ON UPDATE action, and every ON DELETE action is covered: a DELETE counts as every table', async () => {
    assert.ok(tables.length > 10, 'the migrations made no tables');
    let deleteActions = 0;
    for (const table of tables) {
      const { rows } = await sql<{ table: string; on_update: string; on_delete: string }>`
        select * from pragma_foreign_key_list(${table})`.execute(db);
      for (const key of rows) {
        const where = `${table} → ${key.table}`;
        // An UPDATE is counted against its own table only (change-stamps.ts).
        assert.ok(['NO ACTION', 'RESTRICT'].includes(key.on_update), `ON UPDATE ${key.on_update}: ${where}`);
        if (!['NO ACTION', 'RESTRICT'].includes(key.on_delete)) {
          deleteActions += 1;
          // The schema has ON DELETE CASCADE / SET NULL today: safe only while the stamp parser
          // never narrows a DELETE of the parent table to that table.
          assert.deepEqual(
            writeScope(`delete from "${key.table}" where "id" = ?`),
            { kind: 'every', why: 'delete' },
            `ON DELETE ${key.on_delete}: ${where}`,
          );
        }
      }
    }
    assert.ok(deleteActions > 0, 'no ON DELETE action left: this test can say so');
  });

  it('has no nondeterministic column default (a plain INSERT would not replay the same)', async () => {
    for (const table of tables) {
      const { rows } = await sql<{ name: string; dflt_value: string | null }>`
        select name, dflt_value from pragma_table_info(${table})`.execute(db);
      for (const column of rows) {
        if (column.dflt_value === null) continue;
        assert.equal(nondeterminism(column.dflt_value), undefined, `${table}.${column.name}`);
      }
    }
  });
});

describe('SQL the app runs on SQLite, from its migrations through a full flow', () => {
  let t: TestApp;
  let statements: Array<{ readonly sql: string; readonly readonly: boolean }>;

  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
    await runFullFlow(t);
    statements = preparedStatements(t.ctx.db);
  });
  after(() => t.close());

  it('prepared the statements of every step, and kept them all', () => {
    // Beyond the driver's statement cache (500) the check below would miss some.
    assert.ok(statements.length > 100 && statements.length < 500, `${statements.length} statements`);
    assert.ok(
      statements.some(({ sql }) => sql.startsWith('create table "access_tokens"')),
      'no migration',
    );
    assert.ok(
      statements.some(({ sql }) => sql.startsWith('update "access_tokens" set "revoked_at"')),
      'no revocation',
    );
  });

  it('every write is understood by the change-stamp parser', () => {
    const unknown = statements.filter((s) => !s.readonly && writeScope(s.sql).kind === 'unknown');
    assert.deepEqual(
      unknown.map((s) => s.sql),
      [],
    );
  });

  it('every write is deterministic, so group commit can replay it', () => {
    const nondeterministic = statements.filter((s) => !s.readonly && nondeterminism(s.sql) !== undefined);
    assert.deepEqual(
      nondeterministic.map((s) => s.sql),
      [],
    );
  });
});

/** Sign-in, consent, code exchange, the API (reads and writes), UserInfo, refresh, introspection, revocation. */
async function runFullFlow(t: TestApp): Promise<void> {
  const ok = (status: number, what: string) => assert.ok(status < 400, `${what}: ${status}`);
  const demo = await seedDemo(t);
  await register(t);
  const client: RegisteredClient = await registerConfidential(t, {
    redirect_uris: ['http://127.0.0.1/callback'],
  });
  const person = await createPerson(t.ctx.db, { now: t.clock.now() });
  const pkce = pkcePair();
  const redirect = await authorizeViaPages({
    baseUrl: t.url,
    params: {
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1/callback',
      scope: 'openid profile email account:read account:write offline_access',
      code_challenge: pkce.challenge,
      state: 's',
    },
    email: person.email,
    password: person.password,
    decision: 'allow',
  });
  const exchanged = await postForm(t, '/api/oauth/token', {
    grant_type: 'authorization_code',
    code: redirect.searchParams.get('code') ?? '',
    redirect_uri: 'http://127.0.0.1/callback',
    code_verifier: pkce.verifier,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  ok(exchanged.statusCode, 'code exchange');
  const tokens = exchanged.json() as { access_token: string; refresh_token: string };
  ok((await call(t, 'GET', '/api/v1/account', { token: tokens.access_token })).statusCode, 'GET /account');
  ok(
    (await call(t, 'PATCH', '/api/v1/account', { token: tokens.access_token, body: { name: 'Renamed' } }))
      .statusCode,
    'PATCH /account',
  );
  const courses = '/api/v1/schools/demo/courses';
  const created = await call(t, 'POST', courses, { token: demo.ownerToken, body: { title: 'Invariants' } });
  ok(created.statusCode, 'POST course');
  const { id } = created.json() as { id: string };
  ok(
    (await call(t, 'PATCH', `${courses}/${id}`, { token: demo.ownerToken, body: { title: 'Again' } }))
      .statusCode,
    'PATCH course',
  );
  ok((await call(t, 'DELETE', `${courses}/${id}`, { token: demo.ownerToken })).statusCode, 'DELETE course');
  ok(
    (await t.app.inject({ method: 'GET', url: '/api/oauth/userinfo', headers: bearer(tokens.access_token) }))
      .statusCode,
    'UserInfo',
  );
  const refreshed = await postForm(t, '/api/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  ok(refreshed.statusCode, 'refresh');
  ok((await introspect(t, client, tokens.access_token)).statusCode, 'introspect');
  ok(
    (await revoke(t, client, (refreshed.json() as { refresh_token: string }).refresh_token)).statusCode,
    'revoke',
  );
  ok((await revoke(t, client, tokens.access_token)).statusCode, 'revoke access token');
}
