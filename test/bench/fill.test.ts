/**
 * The bench's grown-database fill (bench/fill.ts) writes rows the real server accepts: a filled
 * access token opens the protected API, a filled refresh token is rotated by the token endpoint,
 * and a prune deletes exactly the expired rows the fill added and no live one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fill, postgresSink, type RowSink, sqliteSink } from '../../bench/fill.js';
import { grantIdAt, secretAt } from '../../bench/fill-rows.js';
import { loadConfig } from '../../src/config.js';
import { hashSecret, mintSecret, timeOrderedId } from '../../src/crypto/tokens.js';
import { prune } from '../../src/ops/prune.js';
import { PATHS } from '../../src/paths.js';
import { openStorage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { AccessToken } from '../../src/storage/schema.js';
import {
  DIALECTS,
  dropSchema,
  freePort,
  type ListeningApp,
  listenApp,
  newSchemaName,
  PG_URL,
} from '../helpers/app.js';
import { count } from '../ops/fixtures.js';

const SIZES = { grants: 40, tokens: 200, clients: 7, expired: 95 };

describe('bench fill: secrets', () => {
  it('are stamped and keyed exactly as the server mints them', () => {
    const now = Date.now();
    const filled = secretAt('accessToken', now);
    const minted = mintSecret('accessToken');
    assert.equal(filled.value.length, minted.value.length);
    assert.equal(filled.hash, hashSecret(filled.value));
    assert.equal(filled.hash.slice(0, 9), now.toString(36).padStart(9, '0'));
    assert.equal(filled.value.slice(0, 6), minted.value.slice(0, 6));
    assert.equal(grantIdAt(now).length, timeOrderedId('grt_').length);
  });
});

for (const dialect of DIALECTS) {
  describe(`bench fill [${dialect}]`, () => {
    let server: ListeningApp;
    let dir: string;
    let schema: string | undefined;
    let databaseUrl: string;
    const secrets: Array<{ kind: 'accessToken' | 'refreshToken'; value: string; row: AccessToken }> = [];
    let filled: Awaited<ReturnType<typeof fill>>;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'schoolauth-fill-'));
      schema = dialect === 'postgres' ? newSchemaName() : undefined;
      databaseUrl = schema ? `${PG_URL}?schema=${schema}` : `sqlite:${join(dir, 'grown.db')}`;
      const storage = await openStorage(databaseUrl);
      await migrateToLatest(storage.db, storage.schema);
      await storage.close();
      const port = await freePort();
      const issuer = `http://127.0.0.1:${port}`;
      const sink: RowSink = schema ? await postgresSink(PG_URL!, schema) : sqliteSink(join(dir, 'grown.db'));
      try {
        filled = await fill(sink, SIZES, {
          issuer,
          now: Math.floor(Date.now() / 1000),
          onSecret: (kind, value, row) => secrets.push({ kind, value, row }),
        });
      } finally {
        await sink.close();
      }
      server = await listenApp({
        DATABASE_URL: databaseUrl,
        DATA_DIR: dir,
        HOST: '127.0.0.1',
        ISSUER: issuer,
        PORT: String(port),
      });
    });
    after(async () => {
      await server?.stop();
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
        const response = await fetch(`${server.url}/api/v1/account`, {
          headers: { authorization: `Bearer ${token.value}` },
        });
        assert.equal(response.status, 200, await response.clone().text());
        const body = (await response.json()) as { id?: string; account?: { id: string } };
        assert.equal(body.id ?? body.account?.id, token.row.account_id);
      }
    });

    it('a filled live refresh token is rotated by the token endpoint', async () => {
      const refresh = secrets.filter((s) => s.kind === 'refreshToken');
      const token = refresh[refresh.length - 1]!;
      const response = await fetch(server.url + PATHS.token, {
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

    it('a prune deletes the filled expired rows and nothing live', async () => {
      const storage = await openStorage(databaseUrl);
      try {
        const before = {
          grants: await count(storage.db, 'grants'),
          tokens: (await count(storage.db, 'access_tokens')) + (await count(storage.db, 'refresh_tokens')),
        };
        const config = loadConfig({ DATABASE_URL: databaseUrl });
        const counts = await prune(storage.db, config, Math.floor(Date.now() / 1000), { batchSize: 7 });
        const deadGrants = Math.ceil(SIZES.expired / 10);
        assert.equal(counts.grants, deadGrants);
        assert.equal(counts.accessTokens + counts.refreshTokens, SIZES.expired - deadGrants);
        assert.equal(counts.clients, 0);
        assert.equal(await count(storage.db, 'grants'), before.grants - deadGrants);
        assert.equal(
          (await count(storage.db, 'access_tokens')) + (await count(storage.db, 'refresh_tokens')),
          before.tokens - (SIZES.expired - deadGrants),
        );
      } finally {
        await storage.close();
      }
    });
  });
}
