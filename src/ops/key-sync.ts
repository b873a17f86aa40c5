/**
 * Keeps every instance's in-memory signing keys in step with the database without a restart.
 * `schoolauth keys rotate` sends a PostgreSQL NOTIFY; each instance LISTENs on a dedicated
 * connection and reloads at once. A reload every KEY_RELOAD_INTERVAL seconds covers a missed
 * notification (listener reconnecting) and SQLite (the CLI is another process on the same file);
 * the rotation's pre-publication delay counts that interval in. When a new key starts signing
 * and an old one leaves the JWKS is decided by the times stored with the keys, on each
 * instance's clock: no reload is needed at that moment.
 */
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import pg from 'pg';
import { KEY_RELOAD_INTERVAL, type KeyStore } from '../signing-keys/key-store.js';
import type { Storage } from '../storage/connect.js';
import { dialectOf } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';

export const KEYS_CHANNEL = 'schoolauth_keys';
/** The listener's reconnect delay: doubled after each failed attempt, up to the maximum. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 2000;

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Tells every listening instance that the keys changed (no-op on SQLite, which polls). */
export async function notifyKeysChanged(db: Kysely<Database>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  // Channels are database-wide; the payload names the schema so other deployments ignore it.
  await sql`select pg_notify(${KEYS_CHANNEL}, current_schema())`.execute(db);
}

export interface KeySync {
  stop(): Promise<void>;
}

export function startKeySync(
  storage: Storage,
  keys: KeyStore,
  log: Log,
  intervalSeconds = KEY_RELOAD_INTERVAL,
): KeySync {
  const reload = (why: string) =>
    keys.reload().catch((error: unknown) => log.warn({ err: error, why }, 'signing key reload failed'));
  const timer = setInterval(() => void reload('poll'), intervalSeconds * 1000);
  timer.unref();
  const listener = storage.pool ? new Listener(storage.pool, () => void reload('notify'), log) : undefined;
  listener?.start();
  return {
    async stop() {
      clearInterval(timer);
      await listener?.stop();
    },
  };
}

/**
 * One dedicated connection outside the pool, re-established after any failure: at once, then
 * with a delay doubling up to 2 s, so it listens again within about 2 s of the database's return.
 */
class Listener {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private schema: string | undefined;
  /** The next reconnect delay; 0 while connected. */
  private delay = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly onChange: () => void,
    private readonly log: Log,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client(this.pool.options);
    this.client = client;
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    client.on('notification', (message) => {
      if (message.channel === KEYS_CHANNEL && message.payload === this.schema) this.onChange();
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      this.schema = rows[0]?.schema;
      await client.query(`LISTEN ${KEYS_CHANNEL}`);
      if (this.delay > 0) this.log.info({}, 'key change listener listening again');
      this.delay = 0;
      // Anything rotated while we were not listening.
      this.onChange();
    } catch (error) {
      // One line per outage, not one per attempt.
      if (!this.stopped && this.delay <= RECONNECT_FIRST_MS) {
        this.log.warn({ err: error }, 'key change listener could not connect; retrying');
      }
      this.reconnect(client);
    }
  }

  private reconnect(client: pg.Client): void {
    if (this.stopped || client !== this.client || this.retry) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    const delay = this.delay;
    this.delay = Math.min(RECONNECT_MAX_MS, Math.max(RECONNECT_FIRST_MS, delay * 2));
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, delay);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
