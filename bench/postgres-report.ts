/**
 * The report of a `--database postgres` run: schoolauth on PostgreSQL beside node-oidc-provider
 * (SQLite adapter) and bare Fastify, with database round trips per request and the minimum each
 * scenario needs (docs/performance.md "PostgreSQL"), written into its own block.
 */
import type { Machine } from './machine.js';
import type { Row } from './measure.js';
import type { BenchOptions } from './options.js';
import { IDLE_WINDOW_MS, SETTLE_MS } from './pg-stats.js';
import { findBinaries } from './postgres.js';
import { conditions, judgeTargets, REPORT_PATH, targetsTable, writeBlock } from './report.js';
import { describeTop, type RoundTrips, roundTripCells } from './round-trips.js';
import { SCENARIOS, type ScenarioName } from './scenarios.js';

/** The fewest transactions and statements (round trips) a request needs; see docs/performance.md. */
export interface Minimum {
  readonly transactions: number;
  readonly statements: number;
}

/**
 * A read-only request, and a registration, need one statement (reads joined into one SELECT, a
 * registration's two rows as data-modifying CTEs of one INSERT): PostgreSQL runs it as a
 * transaction of its own, without BEGIN or COMMIT. A token request and a revocation need one
 * read before their write: the client must be read (and the token endpoint's rate limit counted
 * in memory) before anything is written, and its secret, the code's redirect_uri and PKCE and the
 * refresh token's checks run on the rows read, with their own error answers. So one transaction
 * of BEGIN, one read, one write (data-modifying CTEs) and COMMIT: four round trips.
 */
const ONE = { transactions: 1, statements: 1 };
const READ_THEN_WRITE = { transactions: 1, statements: 4 };
/**
 * A DPoP request adds the record of its proof (RFC 9449 §11.1): one `INSERT … ON CONFLICT` of its
 * own (docs/decisions.md "DPoP"), which on PostgreSQL is a round trip and a transaction more.
 */
const withProof = (min: Minimum): Minimum => ({
  transactions: min.transactions + 1,
  statements: min.statements + 1,
});

export const MINIMUM: Record<ScenarioName, Minimum> = {
  discovery: { transactions: 0, statements: 0 },
  jwks: { transactions: 0, statements: 0 },
  registration: ONE,
  code: READ_THEN_WRITE,
  'dpop-code': withProof(READ_THEN_WRITE),
  'code-oidc': READ_THEN_WRITE,
  'code-oidc-es256': READ_THEN_WRITE,
  refresh: READ_THEN_WRITE,
  'dpop-refresh': withProof(READ_THEN_WRITE),
  userinfo: ONE,
  introspection: ONE,
  revocation: READ_THEN_WRITE,
  api: ONE,
  'dpop-api': withProof(ONE),
};

/**
 * Transactions and statements within 5% of the minimum (the rate-limit flush adds a little), once
 * the requests in flight when a run stopped are allowed for: the server answered them, so their
 * statements are counted, but the load generator did not count their answers — up to `inFlight`
 * (connections × runs) more requests than the divisor holds (docs/performance.md "Method").
 */
export function meetsMinimum(rt: RoundTrips, min: Minimum, inFlight = 0): boolean {
  const served = 1 + inFlight / Math.max(1, rt.requests);
  return (
    rt.transactions <= Math.max(1, min.transactions) * 1.05 * served &&
    rt.statements <= (min.statements * 1.05 + 0.05) * served
  );
}

export function postgresBlock(options: Pick<BenchOptions, 'instances' | 'rateLimits'>): string {
  return `results-postgres-${options.instances}${options.rateLimits ? '' : '-no-rate-limits'}`;
}

const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '–' : n.toFixed(digits));

function find(rows: readonly Row[], scenario: ScenarioName, target: Row['target'], c: number) {
  return rows.find((r) => r.scenario === scenario && r.target === target && r.connections === c);
}

export function postgresTable(rows: readonly Row[], connections: readonly number[], runs: number): string {
  const lines = [
    '| Scenario | Conns | schoolauth (PostgreSQL) req/s | p50 ms | p99 ms | CPU µs/req | transactions/req | statements/req | minimum | node-oidc-provider req/s | p99 ms | × peer | × bare Fastify |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const scenario of SCENARIOS) {
    for (const c of connections) {
      const ours = find(rows, scenario.name, 'schoolauth', c);
      if (!ours) continue;
      const peer = find(rows, scenario.name, 'node-oidc-provider', c);
      const bare = scenario.baseline ? find(rows, scenario.name, 'bare-fastify', c) : undefined;
      const min = MINIMUM[scenario.name];
      const rt = ours.roundTrips;
      const minimum = `${min.transactions} / ${min.statements}${rt ? (meetsMinimum(rt, min, c * runs) ? ' met' : ' NOT met') : ''}`;
      const vsPeer = ours.rps && peer?.rps ? `${fmt(ours.rps / peer.rps, 2)}×` : '';
      const vsBare = ours.rps && bare?.rps ? `${fmt((ours.rps / bare.rps) * 100)}%` : '';
      const mine = ours.skipped
        ? [ours.skipped, '', '', '']
        : [fmt(ours.rps), fmt(ours.p50, 1), fmt(ours.p99, 1), fmt(ours.cpuPerRequest)];
      const theirs = !peer ? ['', ''] : peer.skipped ? [peer.skipped, ''] : [fmt(peer.rps), fmt(peer.p99, 1)];
      lines.push(
        `| ${scenario.title} | ${c} | ${mine.join(' | ')} | ${roundTripCells(rt).join(' | ')} | ${minimum} | ${theirs.join(' | ')} | ${vsPeer} | ${vsBare} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The statements behind the figures: per scenario, the most frequent ones per request. */
export function topStatements(rows: readonly Row[]): string {
  const lines: string[] = [];
  for (const scenario of SCENARIOS) {
    const row = rows.find((r) => r.scenario === scenario.name && r.target === 'schoolauth' && r.roundTrips);
    if (row?.roundTrips)
      lines.push(`- ${scenario.name} (c=${row.connections}): ${describeTop(row.roundTrips)}`);
  }
  return lines.join('\n');
}

export function postgresReport(machine: Machine, options: BenchOptions, rows: readonly Row[]): string {
  const version = findBinaries().split('/').at(-2) ?? '?';
  const setup =
    options.instances > 1
      ? `${options.instances} schoolauth instances behind the bench's round-robin TCP balancer (one process on the load generator's core, each connection to the next instance), one database`
      : 'one schoolauth instance';
  return [
    `- schoolauth on PostgreSQL ${version}: ${setup}; a private cluster started by the bench (initdb in a temporary directory, loopback port, PostgreSQL's defaults but pg_stat_statements preloaded with track_utility on; pinned with the instances to the server core). CPU µs/req counts the instances and every process of the cluster.`,
    `- Round trips: per scenario, pg_stat_statements is reset and pg_stat_database read once the database has been idle ${SETTLE_MS / 1000} s (backends flush their counters late), the pools filled for all runs, and read again ${SETTLE_MS / 1000} s after the last run; per answered request: transactions (xact_commit + xact_rollback) and statements (BEGIN and COMMIT included). Before the first scenario, an idle window of the same shape (${IDLE_WINDOW_MS / 1000} s with no request) measures what the servers' timers and the cluster do on their own per second; each scenario's share of that over its window is taken out of its figures and shown in parentheses ("+x idle"). The "minimum" column is the fewest a request needs (transactions / statements; docs/performance.md "PostgreSQL").`,
    conditions(machine, options),
    '',
    postgresTable(rows, options.connections, options.runs),
    '',
    'Most frequent statements per request:',
    '',
    topStatements(rows),
    '',
    "Issue 7's targets, schoolauth on PostgreSQL against node-oidc-provider on SQLite (for the record; this mode's own target is the minimum column above):",
    '',
    targetsTable(judgeTargets(rows, options.connections)),
  ].join('\n');
}

/** Prints the report and, unless --no-write, writes it into its block of docs/performance.md. */
export function writePostgresReport(
  machine: Machine,
  options: BenchOptions,
  rows: readonly Row[],
  log: (line: string) => void,
): void {
  const report = postgresReport(machine, options, rows);
  log(`\n${report}`);
  if (options.write) {
    writeBlock(REPORT_PATH, postgresBlock(options), report);
    log(`\nwritten to ${REPORT_PATH}`);
  }
}
