/**
 * Database round trips per request, from PostgreSQL's own statistics: pg_stat_statements (every
 * statement a backend ran, BEGIN and COMMIT included with track_utility on) and pg_stat_database
 * (transactions committed and rolled back). node-postgres sends a parameterised statement as
 * Parse/Bind/Execute/Sync in one write and waits for its answer, so one statement is one round
 * trip.
 */

/** One normalised statement of pg_stat_statements. */
export interface StatementCount {
  readonly query: string;
  readonly calls: number;
}

/** What the statistics hold for the bench database at one moment. */
export interface StatsSnapshot {
  /** pg_stat_statements by queryid. */
  readonly statements: ReadonlyMap<string, StatementCount>;
  /** pg_stat_database xact_commit and xact_rollback. */
  readonly commits: number;
  readonly rollbacks: number;
}

export interface TopStatement {
  readonly query: string;
  readonly perRequest: number;
}

/** Per request, over the measured runs of one scenario. */
export interface RoundTrips {
  readonly requests: number;
  /** Transactions, explicit or implicit (a statement outside BEGIN … COMMIT is one of its own). */
  readonly transactions: number;
  readonly rollbacks: number;
  /** Statements, BEGIN and COMMIT included: round trips to the database. */
  readonly statements: number;
  /** The most frequent statements, most frequent first. */
  readonly top: readonly TopStatement[];
}

/** A transaction's own statements: counted as round trips, not shown among the top ones. */
const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction|end)\b/i;

/** The difference between two snapshots, per request. */
export function perRequest(
  before: StatsSnapshot,
  after: StatsSnapshot,
  requests: number,
  topCount = 8,
): RoundTrips {
  const n = Math.max(1, requests);
  let statements = 0;
  const grouped = new Map<string, number>();
  for (const [id, now] of after.statements) {
    const calls = now.calls - (before.statements.get(id)?.calls ?? 0);
    if (calls <= 0) continue;
    statements += calls;
    // BEGIN, begin and BEGIN ISOLATION LEVEL … are separate entries; one line each is enough.
    const key = TRANSACTION_CONTROL.test(now.query)
      ? now.query.trim().split(/\s+/)[0]!.toUpperCase()
      : now.query;
    grouped.set(key, (grouped.get(key) ?? 0) + calls);
  }
  const top = [...grouped]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topCount)
    .map(([query, calls]) => ({ query: shorten(query), perRequest: calls / n }));
  const rollbacks = after.rollbacks - before.rollbacks;
  return {
    requests,
    transactions: (after.commits - before.commits + rollbacks) / n,
    rollbacks: rollbacks / n,
    statements: statements / n,
    top,
  };
}

/** One line of SQL, at most `max` characters. */
export function shorten(query: string, max = 90): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const fmt = (n: number) => n.toFixed(2);

/** The table cells of the PostgreSQL runs: transactions and statements per request. */
export function roundTripCells(rt: RoundTrips | undefined): [string, string] {
  return rt ? [fmt(rt.transactions), fmt(rt.statements)] : ['', ''];
}

/** The top statements of one scenario, as a Markdown list line. */
export function describeTop(rt: RoundTrips): string {
  return rt.top.map((t) => `${fmt(t.perRequest)}× \`${t.query.replace(/`/g, "'")}\``).join('; ');
}
