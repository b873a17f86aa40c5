/**
 * `npm run bench -- --grown` (issue 22 item 5): cost as the database grows.
 *
 * 1. Two schoolauth servers at once: one on an empty database, one on a database filled
 *    (bench/fill.ts) with live grants, their tokens, clients and the expired rows a prune will
 *    delete. The token, introspection and protected GET scenarios run on both, the runs taking
 *    turns (empty, grown, empty, …) as everywhere in the bench, so the machine's drift weighs on
 *    both alike.
 * 2. The empty server stops; on the grown one, under load, its own periodic prune job runs once,
 *    started by the bench through the probe (bench/servers/probe.mjs holds the PRUNE_INTERVAL
 *    timer until told to fire it): a "before" run, then the prune fired at a known moment, the
 *    load going on in one-second runs until the prune's log line (its time to the millisecond
 *    gives the duration). The server's longest event-loop delay comes from the probe's
 *    perf_hooks monitor.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type ActivitySample, ClusterActivity, describeActivity } from './cluster-activity.js';
import { type FillResult, type FillSizes, fill, postgresSink, type RowSink, sqliteSink } from './fill.js';
import { Fixture } from './fixture.js';
import { GROWN_SCENARIOS, type GrowthOptions } from './growth-options.js';
import { fillLine, grownTable, type PruneRun, pruneTable } from './growth-report.js';
import type { Measurement } from './load.js';
import { describeMachine } from './machine.js';
import { Contender, measureTogether, type Row, type RunSettings, runSettings } from './measure.js';
import type { BenchOptions } from './options.js';
import { PrivateCluster } from './postgres.js';
import { pruneEnd } from './prune-log.js';
import { REPORT_PATH, writeBlock } from './report.js';
import { ResponseTimes } from './response-times.js';
import { SCENARIOS } from './scenarios.js';
import { StatementProfiler, statementProfileTable } from './statement-profile.js';
import { startSchoolauth } from './targets/schoolauth.js';
import type { OAuthTarget } from './targets/target.js';

type Log = (line: string) => void;

/** A database per server: a file in its own directory, or a PostgreSQL database made for it. */
class Databases {
  private readonly made: string[] = [];
  /**
   * @param adminUrl the cluster's `postgres` database (the machine's, or a private cluster's
   *   with `--statement-profile`)
   */
  constructor(
    private readonly grown: GrowthOptions,
    private readonly dataDir: string,
    readonly adminUrl: string,
  ) {}

  /** The PostgreSQL database of the server called `name`. */
  static nameOf(name: string): string {
    return `schoolauth_bench_${process.pid}_${name}`;
  }

  async url(name: string): Promise<{ dir: string; env: Record<string, string> }> {
    const dir = join(this.dataDir, name);
    mkdirSync(dir, { recursive: true });
    if (this.grown.database === 'sqlite') return { dir, env: {} };
    const database = Databases.nameOf(name);
    await this.admin(`CREATE DATABASE ${database}`);
    this.made.push(database);
    const url = new URL(this.adminUrl);
    url.pathname = `/${database}`;
    return { dir, env: { DATABASE_URL: url.toString() } };
  }

  sink(env: Record<string, string>): Promise<RowSink> | RowSink {
    return env.DATABASE_URL?.startsWith('postgres')
      ? postgresSink(env.DATABASE_URL)
      : sqliteSink(env.DATABASE_URL!.slice('sqlite:'.length));
  }

  async dropAll(): Promise<void> {
    for (const database of this.made) await this.admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }

  private async admin(statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }
}

async function fillBeforeStart(
  dbs: Databases,
  sizes: FillSizes,
  log: Log,
  done: (result: FillResult) => void,
): Promise<(env: Record<string, string>, issuer: string) => Promise<void>> {
  return async (env, issuer) => {
    const sink = await dbs.sink(env);
    try {
      const result = await fill(sink, sizes, { issuer, now: Math.floor(Date.now() / 1000) }, log);
      log(`  ${fillLine(result)}`);
      done(result);
    } finally {
      await sink.close();
    }
  };
}

/** PRUNE_INTERVAL of the grown server: held by the probe, so a value no other timer uses. */
const HELD_PRUNE_INTERVAL = 86_399;

/** The grown-database scenarios on both servers, each at every connection count, runs taking turns. */
async function measureScenarios(
  fixtures: { empty: Fixture; grown: Fixture },
  options: BenchOptions,
  settings: RunSettings,
  profiler: StatementProfiler | undefined,
): Promise<{ rows: Row[]; profiles: string[] }> {
  const rows: Row[] = [];
  const profiles: string[] = [];
  for (const scenario of SCENARIOS.filter((s) => GROWN_SCENARIOS.includes(s.name))) {
    if (!options.scenarios.includes(scenario.name)) continue;
    for (const connections of options.connections) {
      await profiler?.reset();
      const contenders: Contender[] = [];
      for (const [label, fixture] of Object.entries(fixtures)) {
        const contender = await Contender.oauth(scenario, fixture);
        if (typeof contender === 'string') throw new Error(`${scenario.name} (${label}): ${contender}`);
        contender.label = `schoolauth (${label})`;
        contenders.push(contender);
      }
      rows.push(...(await measureTogether(scenario.name, contenders, connections, settings)));
      if (profiler) {
        const empty = await profiler.read(Databases.nameOf('empty'));
        const grown = await profiler.read(Databases.nameOf('grown'));
        profiles.push(statementProfileTable(`${scenario.name} c=${connections}`, empty, grown));
      }
    }
  }
  return { rows, profiles };
}

/** The server's own prune job, fired once under load; answers when the prune has logged its end. */
async function pruneUnderLoad(
  target: OAuthTarget,
  fixture: Fixture,
  logFile: string,
  options: BenchOptions,
  grown: GrowthOptions,
): Promise<PruneRun> {
  const scenario = SCENARIOS.find((s) => s.name === grown.pruneScenario)!;
  const contender = await Contender.oauth(scenario, fixture);
  if (typeof contender === 'string') throw new Error(`${scenario.name}: ${contender}`);
  const connections = options.connections[0]!;
  await contender.load(connections, options.warmup);
  await target.server.loopDelay(true);
  const beforeTimes = new ResponseTimes();
  const before = await contender.load(connections, options.duration, { responseTimes: beforeTimes });
  const beforeLoop = await target.server.loopDelay(true);
  const fired = await target.server.fireHeldInterval();
  if (fired?.timers !== 1) {
    throw new Error(`the probe held ${fired?.timers ?? 'no'} PRUNE_INTERVAL timer(s), not one`);
  }
  const during: Measurement[] = [];
  const duringTimes = new ResponseTimes();
  const ended = () => pruneEnd(readFileSync(logFile, 'utf8'), fired.at);
  let end = ended();
  while (!end && during.length < MAX_PRUNE_SECONDS) {
    during.push(await contender.load(connections, 1, { responseTimes: duringTimes }));
    end = ended();
  }
  const duringLoop = await target.server.loopDelay(true);
  if (!end) throw new Error(`the prune had not ended after ${MAX_PRUNE_SECONDS} s under load`);
  return {
    scenario: scenario.name,
    connections,
    before,
    during,
    wholeWindow: { before: beforeTimes.summary(), during: duringTimes.summary() },
    beforeLoop,
    duringLoop,
    pruneSeconds: (end.at - fired.at) / 1000,
    pruned: end.pruned,
    ...(end.statements ? { statements: end.statements } : {}),
    ...(end.warmth ? { warmth: end.warmth } : {}),
    ...(end.rests ? { rests: end.rests } : {}),
  };
}

/**
 * With the statement profile (a private cluster): each run's log line also says what the cluster
 * did meanwhile (bench/cluster-activity.ts).
 */
async function withClusterActivity<T>(
  adminUrl: string | undefined,
  settings: RunSettings,
  work: (settings: RunSettings) => Promise<T>,
): Promise<T> {
  if (!adminUrl) return work(settings);
  const activity = await ClusterActivity.connect(adminUrl, {
    grown: Databases.nameOf('grown'),
    empty: Databases.nameOf('empty'),
  });
  try {
    return await work({
      ...settings,
      window: {
        mark: () => activity.sample(),
        describe: async (mark) => describeActivity(mark as ActivitySample, await activity.sample()),
      },
    });
  } finally {
    await activity.close();
  }
}

/** How long the load goes on waiting for the prune to end. */
const MAX_PRUNE_SECONDS = 1800;

/**
 * Both servers up (the empty one, then the grown one after its fill), the scenarios compared,
 * the empty one stopped, the prune under load on the grown one.
 */
async function compareAndPrune(
  options: BenchOptions,
  grown: GrowthOptions,
  dbs: Databases,
  settings: RunSettings,
  profiler: StatementProfiler | undefined,
  log: Log,
): Promise<{ rows: Row[]; profiles: string[]; fill: FillResult; prune: PruneRun }> {
  const sizes = {
    grants: grown.grants,
    tokens: grown.tokens,
    clients: grown.clients,
    expired: grown.pruneRows,
  };
  let filled: FillResult | undefined;
  const empty = await dbs.url('empty');
  log(`starting schoolauth on an empty ${grown.database} database`);
  const emptyTarget = await startSchoolauth(empty.dir, { rateLimits: options.rateLimits, env: empty.env });
  let grownTarget: OAuthTarget | undefined;
  try {
    const full = await dbs.url('grown');
    const logFile = join(full.dir, 'server.log');
    log(
      `filling: ${sizes.grants} live grants, ${sizes.tokens} tokens, ${sizes.clients} clients, ` +
        `${sizes.expired} expired rows`,
    );
    grownTarget = await startSchoolauth(full.dir, {
      rateLimits: options.rateLimits,
      env: {
        ...full.env,
        PRUNE_INTERVAL: String(HELD_PRUNE_INTERVAL),
        // The prune's statement times are a debug line (src/ops/prune-schedule.ts); nothing on a
        // request's path logs at debug level, so the measured requests log as at info.
        LOG_LEVEL: 'debug',
        BENCH_HELD_INTERVAL_MS: String(HELD_PRUNE_INTERVAL * 1000),
      },
      probe: true,
      logFile,
      beforeStart: await fillBeforeStart(dbs, sizes, log, (r) => {
        filled = r;
      }),
    });
    const fixtures = {
      empty: await Fixture.prepare(emptyTarget),
      grown: await Fixture.prepare(grownTarget),
    };
    const { rows, profiles } = await withClusterActivity(profiler && dbs.adminUrl, settings, (s) =>
      measureScenarios(fixtures, options, s, profiler),
    );
    for (const [label, fixture] of Object.entries(fixtures)) {
      if (fixture.staleCodes) log(`  ${label}: ${fixture.staleCodes} unused code(s) dropped as too old`);
    }
    await emptyTarget.server.stop();
    log(`pruning ${sizes.expired} expired rows under ${grown.pruneScenario} load`);
    const prune = await pruneUnderLoad(grownTarget, fixtures.grown, logFile, options, grown);
    log(`  the prune took ${prune.pruneSeconds} s: ${JSON.stringify(prune.pruned)}`);
    return { rows, profiles, fill: filled!, prune };
  } finally {
    await emptyTarget.server.stop();
    await grownTarget?.server.stop();
  }
}

/**
 * With `--statement-profile`: a private cluster (pg_stat_statements preloaded, bench/postgres.ts)
 * instead of the machine's PostgreSQL, and a profiler reading it.
 */
async function profiledCluster(
  grown: GrowthOptions,
  log: Log,
): Promise<{ url: string; profiler?: StatementProfiler; stop: () => Promise<void> }> {
  if (!grown.statementProfile) return { url: grown.postgresUrl, stop: async () => undefined };
  const cluster = await PrivateCluster.start(log);
  try {
    const profiler = await StatementProfiler.connect(cluster.url('postgres'));
    return {
      url: cluster.url('postgres'),
      profiler,
      stop: async () => {
        await profiler.close();
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

export async function runGrowth(options: BenchOptions, dataDir: string, log: Log): Promise<void> {
  const grown = options.grown!;
  const machine = describeMachine();
  const settings = runSettings(options, log);
  const cluster = await profiledCluster(grown, log);
  const dbs = new Databases(grown, dataDir, cluster.url);
  try {
    const {
      rows,
      profiles,
      fill: filled,
      prune,
    } = await compareAndPrune(options, grown, dbs, settings, cluster.profiler, log);
    const report = [
      `Run ${new Date().toISOString().slice(0, 10)} on ${machine.cpu} (${machine.cores} cores), Node ${process.version}, ` +
        `schoolauth on ${grown.database}${cluster.profiler ? ' (a private cluster, pg_stat_statements preloaded)' : ''}, ` +
        `${options.rateLimits ? 'rate limits on (raised above the load)' : 'RATE_LIMITS=off'}; ` +
        `${options.runs} run(s) of ${options.duration} s after ${options.warmup} s of warm-up.`,
      `Command: \`npm run bench -- ${process.argv.slice(2).join(' ')}\``,
      '',
      `Fill of the grown database (live grants with their tokens, clients, and ${grown.pruneRows} ` +
        `expired rows for the prune): ${fillLine(filled)}.`,
      '',
      grownTable(rows, options.connections),
      ...profiles.flatMap((table) => ['', table]),
      '',
      `Prune of the grown database (its ${grown.pruneRows} expired rows among the live ones; the server's own ` +
        `PRUNE_INTERVAL job, started by the bench), under ${prune.scenario} at ${prune.connections} connections.`,
      '',
      pruneTable(prune),
    ].join('\n');
    log(`\n${report}`);
    if (options.write) {
      // A profiled run is on another cluster than the figures of record: a block of its own.
      const block = `grown-${grown.database}${cluster.profiler ? '-statements' : ''}`;
      writeBlock(REPORT_PATH, block, report);
      log(`\nwritten to ${REPORT_PATH}`);
    }
  } finally {
    await dbs.dropAll();
    await cluster.stop();
  }
}
