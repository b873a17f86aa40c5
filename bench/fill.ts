/**
 * Fills a migrated schoolauth database with a grown population (fill-rows.ts), fast: one
 * transaction per batch of thousands of rows; on SQLite prepared INSERTs (better-sqlite3 in this
 * process, the server stopped), on PostgreSQL one INSERT … SELECT FROM unnest(arrays) per table
 * and batch (a handful of parameters, prepared once). Ends with ANALYZE, as a database that grew
 * in production would have statistics.
 */

import pg from 'pg';
import { hashPassword } from '../src/crypto/password.js';
import SQLite from '../src/storage/sqlite/binding.js';
import {
  accountRow,
  clientRow,
  deadGrant,
  emptyBatch,
  type FillBatch,
  type FillShape,
  type FillTable,
  liveGrant,
  share,
} from './fill-rows.js';

const TABLES: readonly FillTable[] = ['clients', 'accounts', 'grants', 'access_tokens', 'refresh_tokens'];
/** Grants per transaction (each with its tokens: ~6 rows a grant at the default sizes). */
const GRANTS_PER_BATCH = 5000;
const ROWS_PER_BATCH = 20_000;
const DAY = 86400;

export interface FillSizes {
  /** Live grants. */
  readonly grants: number;
  /** Tokens of the live grants, access and refresh together. */
  readonly tokens: number;
  readonly clients: number;
  /** Expired rows (dead grants and their expired tokens): what a prune has to delete. */
  readonly expired: number;
}

export interface FillResult {
  readonly rows: Record<FillTable, number>;
  readonly seconds: number;
}

/** Where the rows go: one call per transaction. */
export interface RowSink {
  write(batch: FillBatch): Promise<void>;
  /** Planner statistics for the grown tables. */
  analyze(): Promise<void>;
  close(): Promise<void>;
}

/** A SQLite file (the server must not be running on it). */
export function sqliteSink(file: string): RowSink {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  const statements = new Map<FillTable, SQLite.Statement>();
  const insert = (table: FillTable, row: object) => {
    let statement = statements.get(table);
    if (!statement) {
      const columns = Object.keys(row);
      statement = db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
      );
      statements.set(table, statement);
    }
    statement.run(row);
  };
  const writeAll = db.transaction((batch: FillBatch) => {
    for (const table of TABLES) for (const row of batch[table] ?? []) insert(table, row);
  });
  return {
    write: async (batch) => void writeAll(batch),
    analyze: async () => void db.exec('ANALYZE'),
    close: async () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

/** Column types for unnest(): every column not listed here is text. */
const BIGINT_COLUMNS = new Set([
  'created_at',
  'updated_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
  'rotated_at',
  'auth_time',
  'disabled',
]);

/** A PostgreSQL database (or a schema of it: `schema` is put first on the search path). */
export async function postgresSink(url: string, schema?: string): Promise<RowSink> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (schema) await client.query(`SET search_path TO ${schema}`);
  const insert = async (table: FillTable, rows: readonly object[]) => {
    const columns = Object.keys(rows[0]!);
    const arrays = columns.map((c) => rows.map((row) => (row as Record<string, unknown>)[c]));
    const casts = columns.map((c, i) => `$${i + 1}::${BIGINT_COLUMNS.has(c) ? 'bigint' : 'text'}[]`);
    await client.query({
      name: `fill_${table}`,
      text: `INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(${casts.join(', ')})`,
      values: arrays,
    });
  };
  return {
    async write(batch) {
      await client.query('BEGIN');
      try {
        for (const table of TABLES) {
          const rows = batch[table] ?? [];
          if (rows.length > 0) await insert(table, rows);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    analyze: async () => void (await client.query('ANALYZE')),
    close: () => client.end(),
  };
}

const count = (batch: FillBatch, into: Record<FillTable, number>) => {
  for (const table of TABLES) into[table] += batch[table]?.length ?? 0;
};

/**
 * Writes `sizes` into `sink`: clients, accounts (one per 20 grants), live grants with their
 * tokens, then dead grants with theirs. Grants are spread over the clients and accounts.
 */
export async function fill(
  sink: RowSink,
  sizes: FillSizes,
  shape: Omit<FillShape, 'passwordHash'>,
  log: (line: string) => void = () => undefined,
): Promise<FillResult> {
  const started = performance.now();
  const full: FillShape = { ...shape, passwordHash: await hashPassword(`grown-${Date.now()}`) };
  const rows: Record<FillTable, number> = {
    clients: 0,
    accounts: 0,
    grants: 0,
    access_tokens: 0,
    refresh_tokens: 0,
  };
  const flush = async (batch: FillBatch) => {
    await sink.write(batch);
    count(batch, rows);
  };

  const clientIds = await writeSimple(
    Math.max(1, sizes.clients),
    (i) => clientRow(i, full),
    'clients',
    flush,
  );
  const deadGrants = Math.ceil(sizes.expired / 10);
  const accountCount = Math.max(1, Math.ceil((sizes.grants + deadGrants) / 20));
  const accountIds = await writeSimple(accountCount, (i) => accountRow(i, full), 'accounts', flush);
  const pick = (ids: readonly string[], i: number) => ids[(i * 7919) % ids.length]!;

  let batch = emptyBatch();
  let progress = 0;
  for (let i = 0; i < sizes.grants; i++) {
    const plan = {
      accountId: pick(accountIds, i),
      clientId: pick(clientIds, i),
      tokens: share(sizes.tokens, sizes.grants, i),
      shape: full,
    };
    // Ages spread over the refresh token lifetime: the oldest grants are a month old.
    const age = 3600 + Math.floor(((i + 0.5) / sizes.grants) * 29 * DAY);
    batch.grants.push(liveGrant(plan, age, batch));
    if (batch.grants.length === GRANTS_PER_BATCH) {
      await flush(batch);
      batch = emptyBatch();
      if (++progress % 40 === 0) log(`  filled ${i + 1} live grants`);
    }
  }
  // Dead grants: ten rows each (the grant and nine expired tokens), `expired` rows in all.
  for (let i = 0; i < deadGrants; i++) {
    const plan = {
      accountId: pick(accountIds, i),
      clientId: pick(clientIds, i),
      tokens: Math.max(0, Math.min(9, sizes.expired - i * 10 - 1)),
      shape: full,
    };
    batch.grants.push(deadGrant(plan, batch));
    if (batch.grants.length === GRANTS_PER_BATCH) {
      await flush(batch);
      batch = emptyBatch();
    }
  }
  await flush(batch);
  await sink.analyze();
  return { rows, seconds: (performance.now() - started) / 1000 };
}

async function writeSimple<T extends { id: string }>(
  n: number,
  row: (i: number) => T,
  table: 'clients' | 'accounts',
  flush: (batch: FillBatch) => Promise<void>,
): Promise<string[]> {
  const ids: string[] = [];
  let rows: T[] = [];
  for (let i = 0; i < n; i++) {
    const r = row(i);
    ids.push(r.id);
    rows.push(r);
    if (rows.length === ROWS_PER_BATCH || i === n - 1) {
      await flush({ [table]: rows } as FillBatch);
      rows = [];
    }
  }
  return ids;
}
