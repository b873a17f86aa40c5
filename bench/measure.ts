/**
 * Measuring one scenario on one server at one connection count: a probe request (so a missing
 * endpoint is reported, not measured), a warm-up, then N runs; the row holds the medians.
 * Pools of single-use values are refilled before each run, sized from the rate seen so far.
 */
import type { Fixture } from './fixture.js';
import { type LoadPlan, type Measurement, runLoad, type StaticRequest } from './load.js';
import type { Scenario, ScenarioName } from './scenarios.js';
import type { TargetName } from './targets/target.js';

export interface Row {
  /** `baseline` is bare Fastify's small JSON answer. */
  readonly scenario: ScenarioName | 'baseline';
  readonly target: TargetName;
  readonly connections: number;
  readonly runs?: readonly Measurement[];
  readonly rps?: number;
  readonly p50?: number;
  readonly p99?: number;
  /** Share of one core the server used during the runs (1 = a full core). */
  readonly serverCpu?: number;
  /** Server CPU microseconds per answer: robust against other load on the machine. */
  readonly cpuPerRequest?: number;
  readonly skipped?: string;
}

export interface RunSettings {
  readonly duration: number;
  readonly warmup: number;
  readonly runs: number;
  readonly log: (line: string) => void;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A first guess of requests/s for sizing the warm-up pool; corrected by every run. */
const GUESSED_RPS = 1500;

/** One real request before any load: 404 means the endpoint has not landed yet. */
export async function probe(baseUrl: string, plan: LoadPlan): Promise<string | undefined> {
  if (plan.kind === 'sequence') throw new Error('probe one scenario at a time');
  const request: StaticRequest =
    plan.kind === 'static' ? plan.request : { ...plan.base, body: plan.next() ?? '' };
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers: request.headers ?? {},
    body: request.body,
  });
  const body = await response.text();
  if (response.status === 404) return 'not available yet (404)';
  if (!response.ok) return `failing: ${response.status} ${body.slice(0, 160)}`;
  return undefined;
}

export async function measureScenario(
  scenario: Scenario,
  fixture: Fixture,
  connections: number,
  settings: RunSettings,
): Promise<Row> {
  const base = { scenario: scenario.name, target: fixture.target.name, connections } as const;
  const { server } = fixture.target;
  let rate = GUESSED_RPS;
  const load = async (seconds: number): Promise<Measurement> => {
    if (scenario.pool) await fixture.ensure(scenario.pool, Math.ceil(rate * seconds * 1.5) + connections);
    const plan = scenario.plan(fixture);
    if (typeof plan === 'string') throw new Error(plan);
    const m = await runLoad({ baseUrl: server.baseUrl, connections, seconds, plan, pid: server.pid });
    rate = Math.max(rate, m.exhausted ? m.rps * 2 : m.rps);
    return m;
  };

  const plan = scenario.plan(fixture);
  if (typeof plan === 'string') return { ...base, skipped: plan };
  if (scenario.pool) await fixture.ensure(scenario.pool, 1);
  const problem = await probe(server.baseUrl, plan);
  if (problem) return { ...base, skipped: problem };

  await load(settings.warmup);
  const runs: Measurement[] = [];
  for (let i = 0; i < settings.runs; i++) {
    const m = await load(settings.duration);
    runs.push(m);
    settings.log(
      `  ${fixture.target.name} ${scenario.name} c=${connections} run ${i + 1}: ${describeRun(m)}`,
    );
  }
  return { ...base, ...summariseRuns(runs) };
}

/** One run in a log line. CPU time per answer is far less disturbed by other work than req/s. */
function describeRun(m: Measurement): string {
  const cpu = m.serverCpuSeconds;
  const usage =
    cpu === undefined
      ? ''
      : `, server ${Math.round((cpu / m.seconds) * 100)}% CPU, ${Math.round((cpu / Math.max(1, m.ok + m.nonOk)) * 1e6)} µs CPU/req`;
  return (
    `${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms${usage}` +
    (m.nonOk ? `, ${m.nonOk} non-2xx ${JSON.stringify(m.statusCodes)}` : '') +
    (m.exhausted ? ', pool exhausted' : '')
  );
}

function summariseRuns(runs: readonly Measurement[]) {
  return {
    runs,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    serverCpu: median(runs.map((r) => (r.serverCpuSeconds ?? 0) / r.seconds)),
    cpuPerRequest: median(runs.map((r) => ((r.serverCpuSeconds ?? 0) / Math.max(1, r.ok + r.nonOk)) * 1e6)),
  };
}

/** The bare-Fastify baseline: the same connections and durations, a static GET. */
export async function measureBaseline(
  baseUrl: string,
  path: string,
  pid: number,
  connections: number,
  settings: RunSettings,
): Promise<Row> {
  const plan: LoadPlan = { kind: 'static', request: { method: 'GET', path } };
  await runLoad({ baseUrl, connections, seconds: settings.warmup, plan });
  const runs: Measurement[] = [];
  for (let i = 0; i < settings.runs; i++) {
    const m = await runLoad({ baseUrl, connections, seconds: settings.duration, plan, pid });
    runs.push(m);
    settings.log(`  bare-fastify c=${connections} run ${i + 1}: ${describeRun(m)}`);
  }
  return { scenario: 'baseline', target: 'bare-fastify', connections, ...summariseRuns(runs) };
}
