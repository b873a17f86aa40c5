/** Flags of `npm run bench -- --grown`: the sizes of the grown database and the prune run. */
import type { ScenarioName } from './scenarios.js';

/** The scenarios compared between the empty and the grown database (issue 22 item 5). */
export const GROWN_SCENARIOS: readonly ScenarioName[] = ['code', 'refresh', 'introspection', 'api'];
/** Scenarios the prune can run under: no single-use pool to refill while it runs. */
export const PRUNE_SCENARIOS: readonly ScenarioName[] = ['introspection', 'api', 'userinfo'];

export interface GrowthOptions {
  readonly grants: number;
  readonly tokens: number;
  readonly clients: number;
  /** Expired rows in the prune run's database. */
  readonly pruneRows: number;
  readonly database: 'sqlite' | 'postgres';
  /** PostgreSQL server (a database is created per server and dropped after). */
  readonly postgresUrl: string;
  readonly pruneScenario: ScenarioName;
  /**
   * PostgreSQL only: run on a private cluster with pg_stat_statements and show each scenario's
   * statements, empty against grown (bench/statement-profile.ts).
   */
  readonly statementProfile: boolean;
}

/** The flag definitions, for parseArgs. */
export const GROWTH_FLAGS = {
  grown: { type: 'boolean', default: false },
  'grown-grants': { type: 'string' },
  'grown-tokens': { type: 'string' },
  'grown-clients': { type: 'string' },
  'prune-rows': { type: 'string' },
  'grown-database': { type: 'string' },
  'prune-scenario': { type: 'string' },
  'statement-profile': { type: 'boolean', default: false },
} as const;

export const GROWTH_USAGE = `       [--grown [--grown-grants N] [--grown-tokens N] [--grown-clients N] [--prune-rows N]
                [--grown-database sqlite|postgres] [--prune-scenario ${PRUNE_SCENARIOS.join('|')}]
                [--statement-profile (with --grown-database postgres)]]`;

function count(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  // 1e6, 1_000_000 and 1000000 all read as a million.
  const n = Number(value.replaceAll('_', ''));
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not "${value}"`);
  return n;
}

export function parseGrowth(
  values: { [K in keyof typeof GROWTH_FLAGS]?: string | boolean | undefined },
): GrowthOptions | undefined {
  if (!values.grown) return undefined;
  const database = (values['grown-database'] as string | undefined) ?? 'sqlite';
  if (database !== 'sqlite' && database !== 'postgres') {
    throw new Error(`--grown-database must be sqlite or postgres, not "${database}"`);
  }
  const pruneScenario = ((values['prune-scenario'] as string | undefined) ?? 'introspection') as ScenarioName;
  if (!PRUNE_SCENARIOS.includes(pruneScenario)) {
    throw new Error(`--prune-scenario must be one of ${PRUNE_SCENARIOS.join(', ')}`);
  }
  const statementProfile = values['statement-profile'] === true;
  if (statementProfile && database !== 'postgres') {
    throw new Error('--statement-profile reads pg_stat_statements: use it with --grown-database postgres');
  }
  return {
    grants: count('grown-grants', values['grown-grants'] as string | undefined, 1_000_000),
    tokens: count('grown-tokens', values['grown-tokens'] as string | undefined, 5_000_000),
    clients: count('grown-clients', values['grown-clients'] as string | undefined, 100_000),
    pruneRows: count('prune-rows', values['prune-rows'] as string | undefined, 1_000_000),
    database,
    postgresUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
    pruneScenario,
    statementProfile,
  };
}
