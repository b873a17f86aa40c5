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

/**
 * What the servers do with no request at all, per second: timers of the instances (signing-key
 * reload, successor erasure) and of the cluster. Counted over an idle window of the same shape
 * as a scenario's (docs/performance.md "PostgreSQL").
 */
export interface Background {
  readonly seconds: number;
  readonly transactionsPerSecond: number;
  readonly statementsPerSecond: number;
}

/** Per request, over the measured runs of one scenario. */
export interface RoundTrips {
  readonly requests: number;
  /**
   * Per request, what the idle background would have done over the same window, already taken
   * out of `transactions` and `statements` (0 when no background was measured).
   */
  readonly background?: { readonly transactions: number; readonly statements: number };
  /** Transactions, explicit or implicit (a statement outside BEGIN … COMMIT is one of its own). */
  readonly transactions: number;
  readonly rollbacks: number;
  /** Statements, BEGIN and COMMIT included: round trips to the database. */
  readonly statements: number;
  /** The most frequent statements, most frequent first. */
  readonly top: readonly TopStatement[];
}

/** A transaction's own statements: counted as round trips, not shown among the top ones. */
export const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction|end)\b/i;

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

/**
 * The idle background's share of a window of `seconds` taken out, per request. Never below zero:
 * a window quieter than the idle one (a timer that did not fire in it) is not credited to the
 * requests.
 */
export function withoutBackground(rt: RoundTrips, background: Background, seconds: number): RoundTrips {
  const n = Math.max(1, rt.requests);
  const transactions = Math.min(rt.transactions, (background.transactionsPerSecond * seconds) / n);
  const statements = Math.min(rt.statements, (background.statementsPerSecond * seconds) / n);
  return {
    ...rt,
    transactions: rt.transactions - transactions,
    statements: rt.statements - statements,
    background: { transactions, statements },
  };
}

/** The background rate of an idle window: its counts (perRequest over 1 request) per second. */
export function backgroundRate(idle: RoundTrips, seconds: number): Background {
  return {
    seconds,
    transactionsPerSecond: idle.transactions / seconds,
    statementsPerSecond: idle.statements / seconds,
  };
}

/** One line of SQL, at most `max` characters. */
export function shorten(query: string, max = 90): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const fmt = (n: number) => n.toFixed(2);

/**
 * The table cells of the PostgreSQL runs: transactions and statements per request, the idle
 * background's share (taken out) in parentheses.
 */
export function roundTripCells(rt: RoundTrips | undefined): [string, string] {
  if (!rt) return ['', ''];
  const idle = (n: number | undefined) => (n === undefined ? '' : ` (+${fmt(n)} idle)`);
  return [
    `${fmt(rt.transactions)}${idle(rt.background?.transactions)}`,
    `${fmt(rt.statements)}${idle(rt.background?.statements)}`,
  ];
}

/** The top statements of one scenario, as a Markdown list line. */
export function describeTop(rt: RoundTrips): string {
  return rt.top.map((t) => `${fmt(t.perRequest)}× \`${t.query.replace(/`/g, "'")}\``).join('; ');
}
