/**
 * The bench's grown-database fill (bench/fill.ts) writes rows the built server accepts: a filled
 * access token opens the protected API, a filled refresh token is rotated by the token endpoint,
 * and `schoolauth prune` deletes exactly the expired rows the fill added and no live one. The
 * server runs as the bench runs it (dist/, `npm start`'s flags) and the prune is the CLI's.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { fill, postgresSink, type RowSink, sqliteSink } from '../fill.js';
import { type AccessToken, grantIdAt, secretAt } from '../fill-rows.js';
import { CLI, startSchoolauth } from '../targets/schoolauth.js';
import type { OAuthTarget } from '../targets/target.js';
import { DIALECTS, dropSchema, newSchemaName, PG_URL } from './helpers/postgres.js';

const SIZES = { grants: 40, tokens: 200, clients: 7, expired: 95 };
const run = promisify(execFile);

describe('bench fill: secrets', () => {
  it('carry their issue time as the stamp of the secret and of its stored key', () => {
    const now = Date.now();
    const filled = secretAt('accessToken', now);
    const stamp = now.toString(36).padStart(9, '0');
    assert.match(filled.value, new RegExp(`^sa_at_${stamp}[A-Za-z0-9_-]{43}$`));
    assert.equal(filled.hash.slice(0, 9), stamp);
    assert.match(grantIdAt(now), new RegExp(`^grt_${stamp}[A-Za-z0-9_-]{16}$`));
  });
});

/** Live rows of a table, read from the database file or schema the server uses. */
async function rows(databaseUrl: string, schema: string | undefined, table: string): Promise<number> {
  if (!schema) {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return Number((await client.query(`SELECT count(*) AS n FROM ${schema}.${table}`)).rows[0].n);
  } finally {
    await client.end();
  }
}

for (const dialect of DIALECTS) {
  describe(`bench fill [${dialect}]`, () => {
    let target: OAuthTarget;
    let dir: string;
    let schema: string | undefined;
    let env: Record<string, string>;
    const secrets: Array<{ kind: 'accessToken' | 'refreshToken'; value: string; row: AccessToken }> = [];
    let filled: Awaited<ReturnType<typeof fill>>;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'schoolauth-fill-'));
      schema = dialect === 'postgres' ? newSchemaName() : undefined;
      const databaseUrl = schema ? `${PG_URL}?schema=${schema}` : `sqlite:${join(dir, 'grown.db')}`;
      target = await startSchoolauth(dir, {
        env: { DATABASE_URL: databaseUrl },
        beforeStart: async (serverEnv, issuer) => {
          env = serverEnv;
          const sink: RowSink = schema
            ? await postgresSink(PG_URL!, schema)
            : sqliteSink(join(dir, 'grown.db'));
          try {
            filled = await fill(sink, SIZES, {
              issuer,
              now: Math.floor(Date.now() / 1000),
              onSecret: (kind, value, row) => secrets.push({ kind, value, row }),
            });
          } finally {
            await sink.close();
          }
        },
      });
    });
    after(async () => {
      await target?.server.stop();
      if (schema) await dropSchema(schema);
      rmSync(dir, { recursive: true, force: true });
    });

    it('writes the sizes asked for', () => {
      assert.equal(filled.rows.clients, SIZES.clients);
      assert.equal(filled.rows.grants, SIZES.grants + Math.ceil(SIZES.expired / 10));
      const tokens = filled.rows.access_tokens + filled.rows.refresh_tokens;
      assert.equal(tokens, SIZES.tokens + SIZES.expired - Math.ceil(SIZES.expired / 10));
    });

    it('a filled access token opens the protected API as its account', async () => {
      const access = secrets.filter((s) => s.kind === 'accessToken');
      assert.ok(access.length >= SIZES.grants);
      for (const token of [access[0]!, access[access.length - 1]!]) {
        const response = await fetch(`${target.server.baseUrl}/api/v1/account`, {
          headers: { authorization: `Bearer ${token.value}` },
        });
        assert.equal(response.status, 200, await response.clone().text());
        const body = (await response.json()) as { id?: string; account?: { id: string } };
        assert.equal(body.id ?? body.account?.id, token.row.account_id);
      }
    });

    it('a filled live refresh token is rotated by the token endpoint', async () => {
      const discovery = (await (
        await fetch(`${target.server.baseUrl}/.well-known/openid-configuration`)
      ).json()) as { token_endpoint: string };
      const refresh = secrets.filter((s) => s.kind === 'refreshToken');
      const token = refresh[refresh.length - 1]!;
      const response = await fetch(discovery.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token.value,
          client_id: token.row.client_id,
        }).toString(),
      });
      assert.equal(response.status, 200, await response.clone().text());
      const body = (await response.json()) as { access_token: string; refresh_token: string };
      assert.match(body.refresh_token, /^sa_rt_/);
    });

    it('schoolauth prune deletes the filled expired rows and nothing live', async () => {
      const url = env.DATABASE_URL!;
      const tokens = async () =>
        (await rows(url, schema, 'access_tokens')) + (await rows(url, schema, 'refresh_tokens'));
      const before = { grants: await rows(url, schema, 'grants'), tokens: await tokens() };
      const { stdout } = await run(process.execPath, [CLI, 'prune'], { env: { ...process.env, ...env } });
      const deadGrants = Math.ceil(SIZES.expired / 10);
      const counted =
        /(\d+) access tokens, (\d+) refresh tokens, (\d+) grants, .* (\d+) dynamic clients/.exec(stdout);
      assert.ok(counted, stdout);
      assert.equal(Number(counted[1]) + Number(counted[2]), SIZES.expired - deadGrants, stdout);
      assert.equal(Number(counted[3]), deadGrants, stdout);
      assert.equal(Number(counted[4]), 0, stdout);
      assert.equal(await rows(url, schema, 'grants'), before.grants - deadGrants);
      assert.equal(await tokens(), before.tokens - (SIZES.expired - deadGrants));
    });
  });
}
