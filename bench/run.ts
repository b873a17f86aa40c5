/**
 * `npm run bench`: schoolauth against node-oidc-provider 9 and bare Fastify, one server at a
 * time on 127.0.0.1, same load for each; prints the table and writes docs/performance.md.
 * `npm run bench -- --soak` runs the memory soak instead. See docs/performance.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinSelf } from './child.js';
import { Fixture } from './fixture.js';
import { describeMachine } from './machine.js';
import { measureBaseline, measureScenario, type Row, type RunSettings } from './measure.js';
import { type BenchOptions, parseOptions } from './options.js';
import { conditions, judgeTargets, REPORT_PATH, resultsTable, targetsTable, writeBlock } from './report.js';
import { SCENARIOS } from './scenarios.js';
import { runSoak } from './soak.js';
import { startBareFastify } from './targets/bare-fastify.js';
import { startOidcProvider } from './targets/oidc-provider.js';
import { startSchoolauth } from './targets/schoolauth.js';
import type { OAuthTarget, TargetName } from './targets/target.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

async function measureTarget(
  target: OAuthTarget,
  options: BenchOptions,
  settings: RunSettings,
): Promise<Row[]> {
  const rows: Row[] = [];
  try {
    const fixture = await Fixture.prepare(target);
    for (const [step, detail] of fixture.details) log(`  ${target.name}: ${step} not possible: ${detail}`);
    const applicable = SCENARIOS.filter((s) => !s.schoolauthOnly || target.name === 'schoolauth');
    for (const scenario of applicable.filter((s) => options.scenarios.includes(s.name))) {
      for (const connections of options.connections) {
        const row = await measureScenario(scenario, fixture, connections, settings);
        if (row.skipped) log(`  ${target.name} ${scenario.name} c=${connections}: ${row.skipped}`);
        rows.push(row);
      }
    }
  } finally {
    await target.server.stop();
  }
  return rows;
}

async function measureBare(options: BenchOptions, settings: RunSettings): Promise<Row[]> {
  const bare = await startBareFastify();
  try {
    const rows: Row[] = [];
    for (const c of options.connections) {
      rows.push(await measureBaseline(bare.server.baseUrl, bare.path, bare.server.pid, c, settings));
    }
    return rows;
  } finally {
    await bare.server.stop();
  }
}

async function benchmark(options: BenchOptions, dataDir: string): Promise<void> {
  const machine = describeMachine();
  const settings: RunSettings = {
    duration: options.duration,
    warmup: options.warmup,
    runs: options.runs,
    log,
  };
  const rows: Row[] = [];
  const wanted = (name: TargetName) => options.targets.includes(name);
  if (wanted('schoolauth')) {
    log('schoolauth (dist, SQLite, LOG_LEVEL=info, RATE_LIMITS=off)');
    rows.push(
      ...(await measureTarget(
        await startSchoolauth(dataDir, { logFile: options.serverLog }),
        options,
        settings,
      )),
    );
  }
  if (wanted('node-oidc-provider')) {
    log('node-oidc-provider 9 (SQLite adapter)');
    rows.push(
      ...(await measureTarget(await startOidcProvider(dataDir, options.serverLog), options, settings)),
    );
  }
  if (
    wanted('bare-fastify') &&
    options.scenarios.some((name) => SCENARIOS.find((s) => s.name === name)?.baseline)
  ) {
    log('bare Fastify');
    rows.push(...(await measureBare(options, settings)));
  }

  const report = [
    conditions(machine, options),
    '',
    resultsTable(rows, options.connections),
    '',
    targetsTable(judgeTargets(rows, options.connections)),
  ].join('\n');
  log(`\n${report}`);
  if (options.write) {
    writeBlock(REPORT_PATH, 'results', report);
    log(`\nwritten to ${REPORT_PATH}`);
  }
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
    else await benchmark(options, dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
