/** Command-line flags of `npm run bench -- …`. */
import { parseArgs } from 'node:util';
import { GROWTH_FLAGS, GROWTH_USAGE, type GrowthOptions, parseGrowth } from './growth-options.js';
import { SCENARIO_NAMES, type ScenarioName } from './scenarios.js';
import type { TargetName } from './targets/target.js';

const TARGET_NAMES: readonly TargetName[] = ['schoolauth', 'node-oidc-provider', 'bare-fastify'];

export interface BenchOptions {
  readonly duration: number;
  readonly warmup: number;
  readonly runs: number;
  readonly connections: readonly number[];
  readonly scenarios: readonly ScenarioName[];
  readonly targets: readonly TargetName[];
  readonly soak: boolean;
  readonly soakSeconds: number;
  /** Write docs/performance.md (off for --quick runs unless --write is given). */
  readonly write: boolean;
  readonly quick: boolean;
  /** Where the servers' stdout/stderr go (default /dev/null). */
  readonly serverLog: string | undefined;
  /** schoolauth with rate limits on, raised above the load (as shipped); false: RATE_LIMITS=off. */
  readonly rateLimits: boolean;
  /** `--grown`: cost as the database grows, and a prune under load (bench/growth.ts). */
  readonly grown: GrowthOptions | undefined;
  /** schoolauth's database: SQLite (default) or a private PostgreSQL cluster (bench/postgres.ts). */
  readonly database: 'sqlite' | 'postgres';
  /** schoolauth instances on PostgreSQL, behind the bench's round-robin balancer when > 1. */
  readonly instances: number;
}

export const USAGE = `usage: npm run bench -- [--duration S] [--warmup S] [--runs N] [--connections 16,64]
       [--scenarios ${SCENARIO_NAMES.join(',')}] [--targets ${TARGET_NAMES.join(',')}] [--quick] [--soak [--soak-seconds N]]
       [--write | --no-write] [--server-log FILE] [--no-rate-limits] [--database sqlite|postgres [--instances N]]
${GROWTH_USAGE}`;

/** A flag's positive number (its fallback when not given); throws a message naming the flag. */
export function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not "${value}"`);
  return n;
}

function list(value: string | undefined): string[] | undefined {
  return value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      runs: { type: 'string' },
      connections: { type: 'string' },
      scenarios: { type: 'string' },
      targets: { type: 'string' },
      quick: { type: 'boolean', default: false },
      soak: { type: 'boolean', default: false },
      'soak-seconds': { type: 'string' },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean' },
      'server-log': { type: 'string' },
      'no-rate-limits': { type: 'boolean', default: false },
      database: { type: 'string', default: 'sqlite' },
      instances: { type: 'string' },
      help: { type: 'boolean', default: false },
      ...GROWTH_FLAGS,
    },
    strict: true,
  });
  if (values.help) throw new Error(USAGE);
  const quick = values.quick;
  const connections = (list(values.connections) ?? (quick ? ['16'] : ['16', '64'])).map((c) =>
    Math.round(positive('connections', c, 16)),
  );
  const scenarios = list(values.scenarios) ?? [...SCENARIO_NAMES];
  for (const s of scenarios) {
    if (!SCENARIO_NAMES.includes(s as ScenarioName)) {
      throw new Error(`unknown scenario "${s}"; known: ${SCENARIO_NAMES.join(', ')}`);
    }
  }
  const targets = list(values.targets) ?? [...TARGET_NAMES];
  for (const t of targets) {
    if (!TARGET_NAMES.includes(t as TargetName)) {
      throw new Error(`unknown target "${t}"; known: ${TARGET_NAMES.join(', ')}`);
    }
  }
  const duration = positive('duration', values.duration, quick ? 2 : 10);
  const warmup = positive('warmup', values.warmup, quick ? 1 : 3);
  const database = values.database;
  if (database !== 'sqlite' && database !== 'postgres') {
    throw new Error(`--database must be sqlite or postgres, not "${database}"`);
  }
  const instances = Math.round(positive('instances', values.instances, 1));
  if (instances > 1 && database !== 'postgres') throw new Error('--instances needs --database postgres');
  if (database === 'postgres' && values.soak) throw new Error('--soak runs on SQLite only');
  return {
    database,
    instances,
    targets: targets as TargetName[],
    duration,
    warmup,
    runs: Math.round(positive('runs', values.runs, quick ? 1 : 3)),
    connections,
    scenarios: scenarios as ScenarioName[],
    soak: values.soak,
    soakSeconds: positive('soak-seconds', values['soak-seconds'], 600),
    write: values['no-write'] ? false : (values.write ?? !quick),
    quick,
    serverLog: values['server-log'],
    rateLimits: !values['no-rate-limits'],
    grown: parseGrowth(values),
  };
}
