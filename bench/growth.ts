/**
 * `npm run bench -- --grown` (issue 22 item 5): cost as the database grows.
 *
 * 1. schoolauth on an empty database, then on a database filled (bench/fill.ts) with live
 *    grants, their tokens and clients: the token, introspection and protected GET scenarios on
 *    each, in one run.
 * 2. A third server on a database holding only expired rows, PRUNE_INTERVAL set so that its own
 *    periodic prune starts after a "before" run: the scenario runs in one-second runs until the
 *    prune has logged its end. The server's longest event-loop delay comes from its own
 *    perf_hooks monitor (bench/servers/probe.mjs).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type FillResult, type FillSizes, fill, postgresSink, type RowSink, sqliteSink } from './fill.js';
import { Fixture } from './fixture.js';
import { GROWN_SCENARIOS, type GrowthOptions } from './growth-options.js';
import { fillLine, grownTable, type PruneRun, pruneTable } from './growth-report.js';
import type { Measurement } from './load.js';
import { describeMachine } from './machine.js';
import { Contender, measureTogether, type Row, type RunSettings } from './measure.js';
import type { BenchOptions } from './options.js';
import { REPORT_PATH, writeBlock } from './report.js';
import { SCENARIOS } from './scenarios.js';
import { startSchoolauth } from './targets/schoolauth.js';

type Log = (line: string) => void;

/** A database per server: a file in its own directory, or a PostgreSQL database made for it. */
class Databases {
  private readonly made: string[] = [];
  constructor(
    private readonly grown: GrowthOptions,
    private readonly dataDir: string,
  ) {}

  async url(name: string): Promise<{ dir: string; env: Record<string, string> }> {
    const dir = join(this.dataDir, name);
    mkdirSync(dir, { recursive: true });
    if (this.grown.database === 'sqlite') return { dir, env: {} };
    const database = `schoolauth_bench_${process.pid}_${name}`;
    await this.admin(`CREATE DATABASE ${database}`);
    this.made.push(database);
    const url = new URL(this.grown.postgresUrl);
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
    const client = new pg.Client({ connectionString: this.grown.postgresUrl });
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

/** The grown-database scenarios on one server, each at every connection count. */
async function measureScenarios(
  fixture: Fixture,
  options: BenchOptions,
  settings: RunSettings,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const scenario of SCENARIOS.filter((s) => GROWN_SCENARIOS.includes(s.name))) {
    if (!options.scenarios.includes(scenario.name)) continue;
    for (const connections of options.connections) {
      const contender = await Contender.oauth(scenario, fixture);
      if (typeof contender === 'string') throw new Error(`${scenario.name}: ${contender}`);
      rows.push(...(await measureTogether(scenario.name, [contender], connections, settings)));
    }
  }
  return rows;
}

/**
 * The empty database's server, then the grown one's, one after the other (two schoolauth
 * servers at once lost the remembered consent of the first one's bench session: a fixture
 * problem left for later); answers the rows in pairs (empty, grown) and the fill.
 */
async function compareGrown(
  options: BenchOptions,
  grown: GrowthOptions,
  dbs: Databases,
  settings: RunSettings,
  log: Log,
): Promise<{ rows: Row[]; fill: FillResult }> {
  const sizes = { grants: grown.grants, tokens: grown.tokens, clients: grown.clients, expired: 0 };
  let filled: FillResult | undefined;
  const empty = await dbs.url('empty');
  log(`starting schoolauth on an empty ${grown.database} database`);
  const emptyTarget = await startSchoolauth(empty.dir, { rateLimits: options.rateLimits, env: empty.env });
  let emptyRows: Row[];
  try {
    emptyRows = await measureScenarios(await Fixture.prepare(emptyTarget), options, settings);
  } finally {
    await emptyTarget.server.stop();
  }
  const full = await dbs.url('grown');
  log(`filling: ${sizes.grants} live grants, ${sizes.tokens} tokens, ${sizes.clients} clients`);
  const grownTarget = await startSchoolauth(full.dir, {
    rateLimits: options.rateLimits,
    env: full.env,
    beforeStart: await fillBeforeStart(dbs, sizes, log, (r) => {
      filled = r;
    }),
  });
  let grownRows: Row[];
  try {
    grownRows = await measureScenarios(await Fixture.prepare(grownTarget), options, settings);
  } finally {
    await grownTarget.server.stop();
  }
  return { rows: emptyRows.flatMap((row, i) => [row, grownRows[i]!]), fill: filled! };
}

/** The prune of `pruneRows` expired rows by the server's own job, under load. */
async function pruneUnderLoad(
  options: BenchOptions,
  grown: GrowthOptions,
  dbs: Databases,
  log: Log,
): Promise<PruneRun> {
  const sizes = { grants: 0, tokens: 0, clients: Math.min(grown.clients, 1000), expired: grown.pruneRows };
  let filled: FillResult | undefined;
  const { dir, env } = await dbs.url('prune');
  const logFile = join(dir, 'server.log');
  log(`filling ${sizes.expired} expired rows; the server prunes ${grown.pruneAfter} s after it starts`);
  const target = await startSchoolauth(dir, {
    rateLimits: options.rateLimits,
    env: { ...env, PRUNE_INTERVAL: String(grown.pruneAfter) },
    probe: true,
    logFile,
    beforeStart: await fillBeforeStart(dbs, sizes, log, (r) => {
      filled = r;
    }),
  });
  const started = Date.now();
  const pruned = () => readFileSync(logFile, 'utf8').includes('pruned dead rows');
  try {
    const fixture = await Fixture.prepare(target);
    const scenario = SCENARIOS.find((s) => s.name === grown.pruneScenario)!;
    const contender = await Contender.oauth(scenario, fixture);
    if (typeof contender === 'string') throw new Error(`${scenario.name}: ${contender}`);
    const connections = options.connections[0]!;
    await contender.load(connections, options.warmup);
    await target.server.loopDelay(true);
    const before = await contender.load(connections, options.duration);
    const beforeLoop = await target.server.loopDelay(true);
    const untilPrune = started + grown.pruneAfter * 1000 - Date.now();
    if (untilPrune < 500 || pruned()) {
      throw new Error(
        `the prune started before the "before" run ended: raise --prune-after (${grown.pruneAfter})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, untilPrune - 500));
    await target.server.loopDelay(true);
    const during: Measurement[] = [];
    const pruneStart = Date.now();
    while (!pruned() && during.length < 600) during.push(await contender.load(connections, 1));
    const duringLoop = await target.server.loopDelay(true);
    return {
      scenario: scenario.name,
      connections,
      fill: filled!,
      before,
      during,
      beforeLoop,
      duringLoop,
      pruneSeconds: (Date.now() - pruneStart) / 1000,
    };
  } finally {
    await target.server.stop();
  }
}

export async function runGrowth(options: BenchOptions, dataDir: string, log: Log): Promise<void> {
  const grown = options.grown!;
  const machine = describeMachine();
  const settings: RunSettings = {
    duration: options.duration,
    warmup: options.warmup,
    runs: options.runs,
    log,
  };
  const dbs = new Databases(grown, dataDir);
  try {
    const compared = await compareGrown(options, grown, dbs, settings, log);
    const prune = await pruneUnderLoad(options, grown, dbs, log);
    const report = [
      `Run ${new Date().toISOString().slice(0, 10)} on ${machine.cpu} (${machine.cores} cores), Node ${process.version}, ` +
        `schoolauth on ${grown.database}, ${options.rateLimits ? 'rate limits on (raised above the load)' : 'RATE_LIMITS=off'}; ` +
        `${options.runs} run(s) of ${options.duration} s after ${options.warmup} s of warm-up.`,
      `Command: \`npm run bench -- ${process.argv.slice(2).join(' ')}\``,
      '',
      `Fill of the grown database: ${fillLine(compared.fill)}.`,
      '',
      grownTable(compared.rows, options.connections),
      '',
      `Prune of ${grown.pruneRows} expired rows (the server's own PRUNE_INTERVAL job), ` +
        `under ${prune.scenario} at ${prune.connections} connections; fill: ${fillLine(prune.fill)}.`,
      '',
      pruneTable(prune),
    ].join('\n');
    log(`\n${report}`);
    if (options.write) {
      writeBlock(REPORT_PATH, `grown-${grown.database}`, report);
      log(`\nwritten to ${REPORT_PATH}`);
    }
  } finally {
    await dbs.dropAll();
  }
}
