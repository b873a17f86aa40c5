/**
 * `--grown --grown-database postgres --statement-profile`: what each statement of a scenario
 * costs inside PostgreSQL on the grown database against the empty one, from pg_stat_statements
 * (mean execution time, shared buffers hit and read, WAL written per call). The grown-database throughput
 * table says that a scenario slowed; this says which statement did, and whether from reading
 * pages (an index or table no longer in shared_buffers) or from more work per call
 * (docs/performance.md "Cost as the database grows").
 *
 * The two servers' databases live in one cluster, so each statement appears once per database;
 * its queryid differs between them (it covers the tables' oids), so statements are matched by
 * their normalised text.
 */
import pg from 'pg';
import { shorten, TRANSACTION_CONTROL } from './round-trips.js';

/** One statement's figures over a window, in one database. */
export interface StatementTime {
  readonly calls: number;
  /** Total execution time, ms. */
  readonly totalMs: number;
  readonly sharedHit: number;
  readonly sharedRead: number;
  /** WAL written, bytes, and of it full-page images (a page's first change after a checkpoint). */
  readonly walBytes: number;
  readonly walFpi: number;
}

/** Reads and resets pg_stat_statements over a connection to the cluster's `postgres` database. */
export class StatementProfiler {
  private constructor(private readonly client: pg.Client) {}

  static async connect(adminUrl: string): Promise<StatementProfiler> {
    const client = new pg.Client({ connectionString: adminUrl });
    // The extension exists: the private cluster made it when it started (bench/postgres.ts).
    await client.connect();
    return new StatementProfiler(client);
  }

  async reset(): Promise<void> {
    await this.client.query('select pg_stat_statements_reset()');
  }

  /**
   * Every top-level statement of `database` since the last reset, by normalised text (summed
   * over the entries the same text has, one per role and queryid).
   */
  async read(database: string): Promise<Map<string, StatementTime>> {
    const { rows } = await this.client.query<{ query: string } & Record<keyof StatementTime, number>>(
      `select s.query, sum(s.calls)::float8 as "calls", sum(s.total_exec_time) as "totalMs",
              sum(s.shared_blks_hit)::float8 as "sharedHit", sum(s.shared_blks_read)::float8 as "sharedRead",
              sum(s.wal_bytes)::float8 as "walBytes", sum(s.wal_fpi)::float8 as "walFpi"
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = $1 and s.toplevel
        group by s.query`,
      [database],
    );
    return new Map(rows.map(({ query, ...time }) => [query, time]));
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

const fmt = (n: number, digits: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const perCall = (t: StatementTime | undefined, pick: (t: StatementTime) => number, digits: number) =>
  t && t.calls > 0 ? fmt(pick(t) / t.calls, digits) : '–';

const buffers = (t: StatementTime | undefined) =>
  `${perCall(t, (x) => x.sharedHit, 1)} / ${perCall(t, (x) => x.sharedRead, 2)}`;

const wal = (t: StatementTime | undefined) =>
  `${perCall(t, (x) => x.walBytes / 1024, 2)} / ${perCall(t, (x) => x.walFpi, 2)}`;

/**
 * A Markdown table of one scenario's statements, the grown database's costliest first (by total
 * time): mean ms, shared buffers hit and read, and WAL written (kB, and full-page images) per call,
 * empty against grown.
 */
export function statementProfileTable(
  scenario: string,
  empty: ReadonlyMap<string, StatementTime>,
  grown: ReadonlyMap<string, StatementTime>,
  top = 8,
): string {
  const queries = [...new Set([...empty.keys(), ...grown.keys()])]
    // BEGIN, COMMIT and the like: round trips, but nothing a grown table slows.
    .filter((query) => !TRANSACTION_CONTROL.test(query))
    .sort((a, b) => (grown.get(b)?.totalMs ?? 0) - (grown.get(a)?.totalMs ?? 0))
    .slice(0, top);
  const lines = [
    `| ${scenario}: statement | calls empty / grown | mean ms empty | mean ms grown | buffers hit / read per call, empty | grown | WAL kB / full-page images per call, empty | grown |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const query of queries) {
    const e = empty.get(query);
    const g = grown.get(query);
    lines.push(
      `| \`${shorten(query, 110).replace(/`/g, "'").replace(/\|/g, '\\|')}\` | ${e?.calls ?? 0} / ${g?.calls ?? 0} | ` +
        `${perCall(e, (x) => x.totalMs, 3)} | ${perCall(g, (x) => x.totalMs, 3)} | ${buffers(e)} | ${buffers(g)} | ` +
        `${wal(e)} | ${wal(g)} |`,
    );
  }
  return lines.join('\n');
}
