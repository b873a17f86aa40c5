/**
 * Test applications: a real Fastify app on a real database, one per test file and dialect.
 * SQLite runs in memory (or, with `sqliteFile`, in a file opened as the server opens it);
 * PostgreSQL gets a schema of its own that is dropped at close.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { createApp } from '../../src/app.js';
import { bootstrap } from '../../src/bootstrap.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type AppContext, systemClock } from '../../src/context.js';
import { KeyStore } from '../../src/signing-keys/key-store.js';
import { type DialectName, openStorage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { Database } from '../../src/storage/schema.js';

/** Dialects to run every storage and HTTP suite on: SQLite always, PostgreSQL when test/run.mjs found one. */
export const DIALECTS: readonly DialectName[] = process.env.SCHOOLAUTH_TEST_PG_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];

export const PG_URL = process.env.SCHOOLAUTH_TEST_PG_URL;

/** A clock tests can move forward to cross lifetimes, and stop where a second counts. */
export class TestClock {
  offset = 0;
  private frozenAt: number | undefined;
  readonly now = (): number => this.frozenAt ?? Math.floor(Date.now() / 1000) + this.offset;
  advance(seconds: number): void {
    this.offset += seconds;
    if (this.frozenAt !== undefined) this.frozenAt += seconds;
  }
  /** Stops the clock: from now on only advance() moves it. */
  freeze(): void {
    this.frozenAt = this.now();
  }
  /** Lets the clock follow real time again (plus what advance() added). */
  thaw(): void {
    this.frozenAt = undefined;
  }
}

/** The app's context, and the database under it for tests to arrange and inspect rows. */
export type TestContext = AppContext & { readonly db: Kysely<Database> };

export interface TestApp {
  readonly app: FastifyInstance;
  readonly ctx: TestContext;
  readonly config: Config;
  readonly clock: TestClock;
  readonly dialect: DialectName;
  /** Listening URL, when started with `listen: true`. */
  readonly url: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Extra environment variables for loadConfig. */
  readonly env?: Record<string, string>;
  /** Listen on a free loopback port; the issuer is that URL. */
  readonly listen?: boolean;
  readonly logStream?: NodeJS.WritableStream;
  /** SQLite: a file in a temporary directory, as the server opens it, instead of an in-memory database. */
  readonly sqliteFile?: boolean;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Creates a fresh PostgreSQL schema name; the caller drops it. */
export function newSchemaName(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export async function createTestApp(dialect: DialectName, options: TestAppOptions = {}): Promise<TestApp> {
  const port = options.listen ? await freePort() : 3000;
  const schema = dialect === 'postgres' ? newSchemaName() : undefined;
  const fileDir =
    dialect === 'sqlite' && options.sqliteFile ? mkdtempSync(join(tmpdir(), 'schoolauth-test-')) : undefined;
  const databaseUrl =
    dialect === 'postgres' ? `${PG_URL}` : fileDir ? `sqlite:${join(fileDir, 'test.db')}` : 'sqlite::memory:';
  const config = loadConfig({
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    RATE_LIMITS: 'off',
    DATA_DIR: `/tmp/schoolauth-test-${process.pid}`,
    ...options.env,
  });
  const storage = await openStorage(
    config.databaseUrl,
    schema ? { schema, poolSize: 5, namedStatements: config.databaseNamedStatements } : {},
  );
  await migrateToLatest(storage.db, storage.schema);
  const clock = new TestClock();
  const keys = new KeyStore(storage, {
    idTokenTtl: config.idTokenTtl,
    keyEncryptionSecret: config.keyEncryptionSecret,
    now: clock.now,
  });
  await keys.reload();
  const ctx: TestContext = { config, storage, store: storage.store, db: storage.db, keys, now: clock.now };
  const app = await createApp(ctx, options.logStream ? { logStream: options.logStream } : {});
  if (options.listen) await app.listen({ host: '127.0.0.1', port });
  else await app.ready();
  return {
    app,
    ctx,
    config,
    clock,
    dialect,
    url: config.issuer,
    async close() {
      await app.close();
      await storage.close();
      if (schema) await dropSchema(schema);
      if (fileDir) rmSync(fileDir, { recursive: true, force: true });
    },
  };
}

export interface ListeningApp {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * The server as main.ts builds it — configuration from `env`, bootstrap (migrations, keys, WAL
 * checkpoints on a worker), createApp, listen — but in this process, so a test that needs a
 * real database file or URL and a real port does not pay for starting a process. (Signals and
 * process exits need test/helpers/server-process.ts.)
 */
export async function listenApp(
  env: Record<string, string>,
  logStream?: NodeJS.WritableStream,
): Promise<ListeningApp> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    RATE_LIMITS: 'off',
    SEED_DEMO: 'off',
    ...env,
    PORT: String(port),
  });
  const ctx = await bootstrap(config, systemClock, { server: true });
  const app = await createApp(ctx, logStream ? { logStream } : {});
  await app.listen({ host: '127.0.0.1', port });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      await app.close();
      await ctx.storage.close();
    },
  };
}
