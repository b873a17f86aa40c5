/**
 * The key-change listener of one instance on PostgreSQL (contract/instances.ts `watchKeys`):
 * `schoolauth keys rotate` sends a NOTIFY on KEYS_CHANNEL with the schema's name; each instance
 * LISTENs on a dedicated connection and reloads at once.
 */
import pg from 'pg';
import type { LogLike } from '../contract/instances.js';

export const KEYS_CHANNEL = 'schoolauth_keys';
/** The listener's reconnect delay: doubled after each failed attempt, up to the maximum. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 2000;

/**
 * One dedicated connection outside the pool, re-established after any failure: at once, then
 * with a delay doubling up to 2 s, so it listens again within about 2 s of the database's return.
 */
export class KeyListener {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private schema: string | undefined;
  /** The next reconnect delay; 0 while connected. */
  private delay = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly onChange: () => void,
    private readonly log: LogLike,
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
