/**
 * `--grown --grown-database postgres --statement-profile`: what the cluster itself did during
 * each measured window — checkpoints, the buffers they and the backends wrote, WAL written, blocks
 * each database read from outside shared_buffers, and autovacuum and autoanalyze runs per
 * database. A grown database's random index pages cost a full-page image each on their first
 * change after a checkpoint, and a freshly filled table draws autovacuum, both on the core
 * PostgreSQL shares with the server (docs/performance.md "Cost as the database grows"): a window
 * that held one of them says so in its log line.
 */
import pg from 'pg';

/** Cumulative counters at one moment (PostgreSQL's statistics views). */
export interface ActivitySample {
  readonly checkpoints: number;
  readonly checkpointsRequested: number;
  readonly buffersCheckpoint: number;
  readonly buffersBackend: number;
  /** pg_current_wal_lsn(), in bytes. */
  readonly walBytes: number;
  /** Per database label: blocks read from outside shared_buffers, autovacuum and autoanalyze runs. */
  readonly databases: ReadonlyMap<string, { blocksRead: number; autovacuums: number; autoanalyzes: number }>;
}

const CHECKPOINTS_BEFORE_17 = `select checkpoints_timed + checkpoints_req as checkpoints, checkpoints_req as requested,
  buffers_checkpoint as written, buffers_backend as backend from pg_stat_bgwriter`;
// PostgreSQL 17 moved the checkpointer's counters to pg_stat_checkpointer, and dropped buffers_backend.
const CHECKPOINTS_FROM_17 = `select num_timed + num_requested as checkpoints, num_requested as requested,
  buffers_written as written, 0 as backend from pg_stat_checkpointer`;

const AUTOVACUUM = `select coalesce(sum(autovacuum_count), 0)::float8 as autovacuums,
  coalesce(sum(autoanalyze_count), 0)::float8 as autoanalyzes from pg_stat_all_tables`;

/** Reads the counters over a connection to the cluster's `postgres` database and one to each measured database. */
export class ClusterActivity {
  private constructor(
    private readonly admin: pg.Client,
    private readonly databases: ReadonlyMap<string, { name: string; client: pg.Client }>,
    private readonly checkpointsSql: string,
  ) {}

  /** `databases`: label → database name (the empty and the grown one). */
  static async connect(
    adminUrl: string,
    databases: Readonly<Record<string, string>>,
  ): Promise<ClusterActivity> {
    const clients: pg.Client[] = [];
    const open = async (database: string) => {
      const url = new URL(adminUrl);
      url.pathname = `/${database}`;
      const client = new pg.Client({ connectionString: url.toString() });
      clients.push(client);
      await client.connect();
      return client;
    };
    try {
      const admin = await open('postgres');
      const version = Number((await admin.query<{ v: string }>('show server_version_num')).rows[0]!.v);
      const connected = new Map<string, { name: string; client: pg.Client }>();
      for (const [label, name] of Object.entries(databases))
        connected.set(label, { name, client: await open(name) });
      return new ClusterActivity(
        admin,
        connected,
        version >= 170000 ? CHECKPOINTS_FROM_17 : CHECKPOINTS_BEFORE_17,
      );
    } catch (error) {
      await Promise.allSettled(clients.map((c) => c.end()));
      throw error;
    }
  }

  async sample(): Promise<ActivitySample> {
    const [checkpoints] = (await this.admin.query<Record<string, string>>(this.checkpointsSql)).rows;
    const [wal] = (
      await this.admin.query<{ bytes: string }>(`select pg_current_wal_lsn() - '0/0'::pg_lsn as bytes`)
    ).rows;
    const reads = new Map(
      (
        await this.admin.query<{ datname: string; blks_read: string }>(
          'select datname, blks_read from pg_stat_database where datname = any($1)',
          [[...this.databases.values()].map((d) => d.name)],
        )
      ).rows.map((row) => [row.datname, Number(row.blks_read)]),
    );
    const databases = new Map<string, { blocksRead: number; autovacuums: number; autoanalyzes: number }>();
    for (const [label, { name, client }] of this.databases) {
      // pg_stat_all_tables shows only the database a connection is on: one connection per database.
      const [vacuum] = (await client.query<{ autovacuums: number; autoanalyzes: number }>(AUTOVACUUM)).rows;
      databases.set(label, {
        blocksRead: reads.get(name) ?? 0,
        autovacuums: vacuum!.autovacuums,
        autoanalyzes: vacuum!.autoanalyzes,
      });
    }
    return {
      checkpoints: Number(checkpoints!.checkpoints),
      checkpointsRequested: Number(checkpoints!.requested),
      buffersCheckpoint: Number(checkpoints!.written),
      buffersBackend: Number(checkpoints!.backend),
      walBytes: Number(wal!.bytes),
      databases,
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled(
      [this.admin, ...[...this.databases.values()].map((d) => d.client)].map((c) => c.end()),
    );
  }
}

/**
 * What happened between two samples, in one clause for a run's log line: e.g. "cluster: 1
 * checkpoint (0 requested), 10,233 buffers written by checkpoints and 0 by backends, 96.4 MB
 * of WAL; grown: 12 blocks read, 1 autovacuum, 0 autoanalyzes; empty: …".
 */
export function describeActivity(before: ActivitySample, after: ActivitySample): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`;
  const parts = [
    `cluster: ${plural(after.checkpoints - before.checkpoints, 'checkpoint')} ` +
      `(${n(after.checkpointsRequested - before.checkpointsRequested)} requested), ` +
      `${n(after.buffersCheckpoint - before.buffersCheckpoint)} buffers written by checkpoints and ` +
      `${n(after.buffersBackend - before.buffersBackend)} by backends, ` +
      `${((after.walBytes - before.walBytes) / 1e6).toFixed(1)} MB of WAL`,
  ];
  for (const [label, now] of after.databases) {
    const then = before.databases.get(label) ?? { blocksRead: 0, autovacuums: 0, autoanalyzes: 0 };
    parts.push(
      `${label}: ${plural(now.blocksRead - then.blocksRead, 'block')} read, ` +
        `${plural(now.autovacuums - then.autovacuums, 'autovacuum')}, ` +
        `${plural(now.autoanalyzes - then.autoanalyzes, 'autoanalyze')}`,
    );
  }
  return parts.join('; ');
}
