/**
 * Named statements on PostgreSQL (src/storage/statement-names.ts): the fixed statements are
 * parsed once per connection and then planned from the cache, and a table changed by another
 * connection (a column added by another instance's migration) costs no request an error: the
 * stale statement's connection is dropped and the statement, or the request's transaction, runs
 * once more. DATABASE_NAMED_STATEMENTS=off sends them unnamed, as every other statement.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { Account } from '../../src/storage/schema.js';
import { PG_URL, type TestApp } from '../helpers/app.js';
import {
  exchangeCode,
  introspect,
  mintCode,
  oauthSuite,
  type RegisteredClient,
  refresh,
  register,
  revoke,
  tokensFor,
} from '../helpers/oauth.js';

interface PreparedRow {
  readonly statement: string;
  readonly generic_plans: number;
  readonly custom_plans: number;
}

/** The named statements of the connection the next statement runs on, introspection's among them. */
async function preparedOn(t: TestApp): Promise<PreparedRow[]> {
  const { rows } = await sql<PreparedRow>`
    select statement, generic_plans, custom_plans from pg_prepared_statements
    where statement like ${'%left join "access_tokens"%'}`.execute(t.ctx.db);
  return rows;
}

/** The writes of data-modifying CTEs (executeFixed), by the table each one's first part changes. */
const WRITES = {
  'code exchange': 'update authorization_codes set consumed_at',
  refresh: 'update refresh_tokens set rotated_at',
  revocation: 'update access_tokens set revoked_at',
  registration: 'with registered as (insert into "clients"',
} as const;

/** Which of WRITES are prepared on the connection the next statement runs on. */
async function writesPreparedOn(t: TestApp): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`
    select statement from pg_prepared_statements where statement like ${'with%'}`.execute(t.ctx.db);
  return Object.entries(WRITES)
    .filter(([, part]) => rows.some((row) => row.statement.includes(part)))
    .map(([write]) => write);
}

/**
 * Runs `work` once on each of the app's five pooled connections: pg-pool hands out the connection
 * released last, so after each run that connection is held, and the next run gets another.
 */
async function onEveryConnection(t: TestApp, work: () => Promise<void>): Promise<void> {
  const pool = t.ctx.storage.pool!;
  const held: pg.PoolClient[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      await work();
      held.push(await pool.connect());
    }
    assert.equal(pool.totalCount, 5, 'the test app’s pool size');
  } finally {
    for (const client of held) client.release();
  }
}

let added = 0;

/** A column added to `table` of the app's schema from a connection of its own, as a migration would. */
async function addColumn(t: TestApp, table: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`ALTER TABLE ${t.ctx.storage.schema}.${table} ADD COLUMN added_${++added} text`);
  } finally {
    await client.end();
  }
}

for (const named of ['on', 'off'] as const) {
  describe(`DATABASE_NAMED_STATEMENTS=${named} [postgres]`, {
    skip: PG_URL ? false : 'no PostgreSQL',
  }, () => {
    let t: TestApp;
    let conf: RegisteredClient;
    let person: Account;
    before(async () => {
      ({ t, conf, person } = await oauthSuite('postgres', { env: { DATABASE_NAMED_STATEMENTS: named } }));
    });
    after(() => t?.close());

    it(
      named === 'on'
        ? 'parses introspection’s statement once on its connection, then runs it on a cached plan'
        : 'sends introspection’s statement unnamed: nothing is prepared on the connection',
      async () => {
        const { access_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
        // One request at a time: pg-pool hands out the connection released last, so all of them,
        // and the read of pg_prepared_statements after, run on one connection.
        for (let i = 0; i < 8; i++) assert.equal((await introspect(t, conf, access_token)).statusCode, 200);
        const rows = await preparedOn(t);
        if (named === 'off') return assert.deepEqual(rows, []);
        assert.equal(rows.length, 1, 'one prepared statement for introspection’s read');
        // PostgreSQL plans a prepared statement's first five runs for their values, then reuses
        // one generic plan when it costs no more: a lookup by a unique key does.
        assert.equal(rows[0]!.custom_plans + rows[0]!.generic_plans, 8);
        assert.ok(rows[0]!.generic_plans >= 1, JSON.stringify(rows[0]));
      },
    );

    it(
      named === 'on'
        ? 'sends the code exchange’s, the refresh’s, revocation’s and registration’s writes named, and runs them after their tables changed'
        : 'sends those writes unnamed',
      async () => {
        const flow = async () => {
          const tokens = await tokensFor(t, conf, person);
          const next = await refresh(t, conf, tokens.refresh_token);
          assert.equal(next.statusCode, 200, next.body);
          assert.equal((await revoke(t, conf, tokens.access_token)).statusCode, 200);
          assert.equal((await introspect(t, conf, tokens.access_token)).json().active, false);
          await register(t);
        };
        // One request at a time, on the connection released last (as above).
        for (let i = 0; i < 3; i++) await flow();
        assert.deepEqual(await writesPreparedOn(t), named === 'on' ? Object.keys(WRITES) : []);
        // Their result columns are their own (RETURNING, a SELECT of named columns): PostgreSQL
        // plans them again after a change, with no error for the request.
        for (const table of [
          'authorization_codes',
          'refresh_tokens',
          'access_tokens',
          'audit_events',
          'grants',
        ]) {
          await addColumn(t, table);
        }
        await flow();
      },
    );

    it('answers introspection as before after another connection added a column to clients', async () => {
      const { access_token } = await tokensFor(t, conf, person, { scopes: ['openid'] });
      await onEveryConnection(t, async () => {
        const res = await introspect(t, conf, access_token);
        assert.equal(res.statusCode, 200, res.body);
      });
      await addColumn(t, 'clients');
      // One at a time: the first finds the change, and the other four connections, prepared before
      // it, are not handed out again (a retry on one of them would fail the same way).
      for (let i = 0; i < 5; i++) {
        const res = await introspect(t, conf, access_token);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal((res.json() as { active: boolean }).active, true);
      }
    });

    it('exchanges a code, then refreshes, each in one transaction, after a column was added to clients', async () => {
      const minted = await mintCode(t, conf, person);
      const first = await tokensFor(t, conf, person);
      // The token endpoint's first statement reads the client with `clients.*` (and the code or
      // the refresh token): its transaction is the one stopped, and run again.
      await addColumn(t, 'clients');
      const exchanged = await exchangeCode(t, conf, minted);
      assert.equal(exchanged.statusCode, 200, exchanged.body);
      const refreshed = await refresh(t, conf, first.refresh_token);
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      // The code was consumed once: the retried transaction did not leave a second use behind.
      const replay = await exchangeCode(t, conf, minted);
      assert.equal(replay.statusCode, 400, replay.body);
    });
  });
}
