/**
 * `npm run bench`: schoolauth against node-oidc-provider 9 and bare Fastify on 127.0.0.1, the
 * same load for each, runs taking turns between the servers; prints the table and writes
 * docs/performance.md.
 * `npm run bench -- --soak` runs the memory soak instead; `--no-rate-limits` runs schoolauth
 * with RATE_LIMITS=off (its own table); `--grown` measures cost as the database grows and a prune
 * under load (bench/growth.ts).
 * `--database postgres [--instances N]` runs schoolauth on PostgreSQL with round trips counted (its
 * own block). See docs/performance.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinSelf } from './child.js';
import { verificationCpuMicros } from './dpop.js';
import { Fixture } from './fixture.js';
import { runGrowth } from './growth.js';
import { describeMachine } from './machine.js';
import { Contender, measureTogether, type Row, type RunSettings, runSettings } from './measure.js';
import { type BenchOptions, parseOptions } from './options.js';
import { writePostgresReport } from './postgres-report.js';
import {
  conditions,
  dpopTable,
  judgeDpop,
  judgeTargets,
  onlyDpopPairs,
  REPORT_PATH,
  resultsBlock,
  resultsTable,
  targetsTable,
  writeBlock,
} from './report.js';
import { SCENARIOS } from './scenarios.js';
import { runSoak } from './soak.js';
import { startBareFastify } from './targets/bare-fastify.js';
import { startOidcProvider } from './targets/oidc-provider.js';
import { startSchoolauth } from './targets/schoolauth.js';
import { startSchoolauthPostgres } from './targets/schoolauth-postgres.js';
import type { BaselineTarget, OAuthTarget, TargetName } from './targets/target.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Servers {
  readonly oauth: Array<{ fixture: Fixture; stop: () => Promise<void> }>;
  readonly bare?: BaselineTarget;
}

/** Starts every wanted server (all pinned to the server core; idle ones cost nothing). */
async function startServers(options: BenchOptions, dataDir: string): Promise<Servers> {
  const wanted = (name: TargetName) => options.targets.includes(name);
  const oauth: Servers['oauth'] = [];
  const sqlite: Array<[TargetName, string, () => Promise<OAuthTarget>]> = [
    [
      'schoolauth',
      `schoolauth (dist, SQLite, LOG_LEVEL=info, ${options.rateLimits ? 'rate limits on, raised above the load' : 'RATE_LIMITS=off'})`,
      () => startSchoolauth(dataDir, { logFile: options.serverLog, rateLimits: options.rateLimits }),
    ],
  ];
  const starters: Array<[TargetName, string, () => Promise<OAuthTarget>]> = [
    ...(options.database === 'postgres' ? onPostgres(options, dataDir) : sqlite),
    [
      'node-oidc-provider',
      'node-oidc-provider 9 (SQLite adapter)',
      () => startOidcProvider(dataDir, options.serverLog),
    ],
  ];
  for (const [name, title, start] of starters) {
    if (!wanted(name)) continue;
    log(`starting ${title}`);
    const target = await start();
    const fixture = await Fixture.prepare(target);
    for (const [step, detail] of fixture.details) log(`  ${target.name}: ${step} not possible: ${detail}`);
    oauth.push({ fixture, stop: () => target.server.stop() });
  }
  const baseline = options.scenarios.some((name) => SCENARIOS.find((s) => s.name === name)?.baseline);
  const bare = wanted('bare-fastify') && baseline ? await startBareFastify() : undefined;
  return { oauth, ...(bare ? { bare } : {}) };
}

/** `--database postgres`: schoolauth on the bench's private PostgreSQL cluster instead. */
function onPostgres(
  options: BenchOptions,
  dataDir: string,
): Array<[TargetName, string, () => Promise<OAuthTarget>]> {
  const title = `schoolauth (dist, PostgreSQL, ${options.instances} instance(s), ${options.rateLimits ? 'rate limits on, raised above the load' : 'RATE_LIMITS=off'})`;
  return [
    [
      'schoolauth',
      title,
      () =>
        startSchoolauthPostgres(dataDir, {
          instances: options.instances,
          rateLimits: options.rateLimits,
          logFile: options.serverLog,
          log,
        }),
    ],
  ];
}

async function stopServers(servers: Servers): Promise<void> {
  for (const { stop } of servers.oauth) await stop();
  await servers.bare?.server.stop();
}

async function measureAll(servers: Servers, options: BenchOptions, settings: RunSettings): Promise<Row[]> {
  const rows: Row[] = [];
  for (const scenario of SCENARIOS.filter((s) => options.scenarios.includes(s.name))) {
    for (const connections of options.connections) {
      const contenders: Contender[] = [];
      for (const { fixture } of servers.oauth) {
        if (scenario.schoolauthOnly && fixture.target.name !== 'schoolauth') continue;
        const contender = await Contender.oauth(scenario, fixture);
        if (typeof contender !== 'string') contenders.push(contender);
        else {
          log(`  ${fixture.target.name} ${scenario.name} c=${connections}: ${contender}`);
          rows.push({
            scenario: scenario.name,
            target: fixture.target.name,
            connections,
            skipped: contender,
          });
        }
      }
      if (scenario.baseline && servers.bare) {
        const { server, path } = servers.bare;
        contenders.push(Contender.baseline(server.baseUrl, path, server.pid));
      }
      rows.push(...(await measureTogether(scenario.name, contenders, connections, settings)));
    }
  }
  return rows;
}

async function benchmark(options: BenchOptions, dataDir: string): Promise<void> {
  const machine = describeMachine();
  const settings = runSettings(options, log);
  const servers = await startServers(options, dataDir);
  let rows: Row[];
  try {
    rows = await measureAll(servers, options, settings);
    for (const { fixture } of servers.oauth) {
      if (fixture.mintRetries)
        log(`  ${fixture.target.name}: ${fixture.mintRetries} authorization(s) tried again`);
      if (fixture.staleCodes)
        log(`  ${fixture.target.name}: ${fixture.staleCodes} unused code(s) dropped as too old`);
    }
  } finally {
    await stopServers(servers);
  }

  if (options.database === 'postgres') return writePostgresReport(machine, options, rows, log);
  const dpop = await dpopReport(rows, options);
  const dpopOnly = onlyDpopPairs(options.scenarios);
  // A run of the DPoP pairs only: the pairs' table holds its rates and CPU, the full table is printed.
  if (dpopOnly) log(`\n${resultsTable(rows, options.connections)}`);
  const report = [
    conditions(machine, options),
    '',
    ...(dpopOnly ? [] : [resultsTable(rows, options.connections), '']),
    targetsTable([...(dpopOnly ? [] : judgeTargets(rows, options.connections)), ...(dpop?.targets ?? [])]),
    ...(dpop ? ['', dpop.table] : []),
  ].join('\n');
  log(`\n${report}`);
  if (options.write) {
    const block = dpopOnly ? 'dpop' : resultsBlock(options);
    writeBlock(REPORT_PATH, block, report);
    log(`\nwritten to ${REPORT_PATH} (block "${block}")`);
  }
}

/**
 * The DPoP forms beside the Bearer ones (issue 46), when DPoP scenarios ran: one ES256
 * verification's CPU is measured here, after the servers stopped, as the target's yardstick.
 */
async function dpopReport(rows: readonly Row[], options: BenchOptions) {
  if (!rows.some((r) => r.scenario.startsWith('dpop-') && !r.skipped)) return undefined;
  const verifyMicros = await verificationCpuMicros();
  log(`one ES256 verification by jose (imported key): ${verifyMicros.toFixed(0)} µs CPU`);
  return {
    table: dpopTable(rows, options.connections, verifyMicros),
    targets: judgeDpop(rows, options.connections, verifyMicros),
  };
}

async function main(): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  pinSelf();
  const dataDir = mkdtempSync(join(tmpdir(), 'schoolauth-bench-'));
  try {
    if (options.soak) await runSoak(options, dataDir, log);
    else if (options.grown) await runGrowth(options, dataDir, log);
    else await benchmark(options, dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
