/**
 * Measuring one scenario at one connection count on every server: a probe request (so a
 * missing endpoint is reported, not measured), a warm-up, then N runs taking turns between the
 * servers; each row holds the medians. Pools of single-use values are refilled before each run,
 * sized from the rate seen so far.
 */
import { cpuSecondsOf } from './child.js';
import type { Fixture } from './fixture.js';
import { type LoadPlan, type Measurement, runLoad, type StaticRequest } from './load.js';
import type { RoundTripCounter } from './pg-stats.js';
import { type CpuReader, describeWait, waitUntilQuiet } from './quiet-servers.js';
import type { ResponseTimes } from './response-times.js';
import type { RoundTrips } from './round-trips.js';
import type { Scenario, ScenarioName } from './scenarios.js';
import type { TargetName } from './targets/target.js';

export interface Row {
  /** For bare Fastify: the scenario its small JSON answer was measured alongside. */
  readonly scenario: ScenarioName;
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
  /** Database round trips per request over the measured runs (PostgreSQL). */
  readonly roundTrips?: RoundTrips;
}

export interface RunSettings {
  readonly duration: number;
  readonly warmup: number;
  readonly runs: number;
  readonly log: (line: string) => void;
  /**
   * Read before and after each measured run; what `describe` answers joins the run's log line
   * (the grown PostgreSQL bench: the cluster's checkpoints and autovacuum, bench/cluster-activity.ts).
   */
  readonly window?: RunWindow;
}

export interface RunWindow {
  mark(): Promise<unknown>;
  describe(mark: unknown): Promise<string>;
}

/** The run settings the command line chose. */
export function runSettings(
  options: Pick<RunSettings, 'duration' | 'warmup' | 'runs'>,
  log: RunSettings['log'],
): RunSettings {
  return { duration: options.duration, warmup: options.warmup, runs: options.runs, log };
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
    headers: { ...request.headers, ...plan.fresh?.() },
    body: request.body,
  });
  const body = await response.text();
  if (response.status === 404) return 'not available yet (404)';
  if (!response.ok) return `failing: ${response.status} ${body.slice(0, 160)}`;
  return undefined;
}

/** One server taking part in a scenario: how to load it, and whether it can be measured. */
export class Contender {
  private rate = GUESSED_RPS;
  readonly runs: Measurement[] = [];
  /** While round trips are counted, pools are not refilled (the refill's requests would count). */
  private counting = false;
  /** How the log names it: the target, or e.g. "schoolauth (grown)" when one target runs twice. */
  label: string;

  private constructor(
    readonly target: TargetName,
    private readonly baseUrl: string,
    private readonly pid: number,
    private readonly scenario: Scenario | undefined,
    private readonly fixture: Fixture | undefined,
    private readonly staticPlan: LoadPlan | undefined,
    private readonly cpuSeconds?: () => number | undefined,
    readonly roundTrips?: RoundTripCounter,
  ) {
    this.label = target;
  }

  /** An OAuth server in a scenario; a string says why it cannot be measured. */
  static async oauth(scenario: Scenario, fixture: Fixture): Promise<Contender | string> {
    const plan = scenario.plan(fixture);
    if (typeof plan === 'string') return plan;
    if (scenario.pool) await fixture.ensure(scenario.pool, 1);
    if (scenario.reader) await fixture.freshReader();
    const { server } = fixture.target;
    const problem = await probe(server.baseUrl, scenario.plan(fixture) as LoadPlan);
    if (problem) return problem;
    return new Contender(
      fixture.target.name,
      server.baseUrl,
      server.pid,
      scenario,
      fixture,
      undefined,
      server.cpuSeconds,
      fixture.target.roundTrips,
    );
  }

  /** Bare Fastify's small JSON answer, measured alongside a scenario. */
  static baseline(baseUrl: string, path: string, pid: number): Contender {
    const plan: LoadPlan = { kind: 'static', request: { method: 'GET', path } };
    return new Contender('bare-fastify', baseUrl, pid, undefined, undefined, plan);
  }

  /**
   * Fills the pool for all measured runs at once (twice the rate seen), then opens the round-trip
   * window: from here until `stopCounting` the database serves the measured requests only.
   */
  async startCounting(connections: number, seconds: number, runs: number): Promise<void> {
    if (!this.roundTrips) return;
    if (this.scenario?.pool && this.fixture) {
      await this.fixture.ensure(this.scenario.pool, Math.ceil(this.rate * seconds * runs * 2) + connections);
    }
    if (this.scenario?.reader) await this.fixture?.freshReader();
    await this.roundTrips.start();
    this.counting = true;
  }

  async stopCounting(): Promise<RoundTrips | undefined> {
    if (!this.roundTrips || !this.counting) return undefined;
    this.counting = false;
    const requests = this.runs.reduce((n, m) => n + m.ok + m.nonOk, 0);
    return this.roundTrips.finish(requests);
  }

  /** Reads the CPU seconds of the process(es) answering for this contender. */
  readonly cpu: CpuReader = () => (this.cpuSeconds ? this.cpuSeconds() : cpuSecondsOf(this.pid));

  /**
   * With `window`, what it saw during the measured load only (after the pool's refill) is `window`;
   * with `responseTimes`, every 2xx answer's time is added there; with `settle`, it is awaited after
   * the refill, just before the load.
   */
  async load(
    connections: number,
    seconds: number,
    extras: {
      readonly window?: RunWindow | undefined;
      readonly responseTimes?: ResponseTimes;
      readonly settle?: () => Promise<void>;
    } = {},
  ): Promise<Measurement & { readonly window?: string }> {
    const { window, responseTimes } = extras;
    let plan = this.staticPlan;
    if (this.scenario && this.fixture) {
      if (this.scenario.pool && !this.counting) {
        await this.fixture.ensure(this.scenario.pool, Math.ceil(this.rate * seconds * 1.5) + connections);
      }
      // While round trips are counted the reader stays: its renewal's requests would count.
      if (this.scenario.reader && !this.counting) await this.fixture.freshReader();
      plan = this.scenario.plan(this.fixture) as LoadPlan;
    }
    await extras.settle?.();
    const mark = await window?.mark();
    const m = await runLoad({
      baseUrl: this.baseUrl,
      connections,
      seconds,
      plan: plan!,
      cpuSeconds: this.cpu,
      responseTimes,
    });
    this.rate = Math.max(this.rate, m.exhausted ? m.rps * 2 : m.rps);
    return window ? { ...m, window: await window.describe(mark) } : m;
  }
}

/**
 * One scenario at one connection count on every contender: each warms up, then the runs take
 * turns (ours, the peer's, bare Fastify's, ours again, …), so a slow drift of the machine —
 * seen here as rates climbing by a third over a minute of load — weighs on all of them alike.
 * Every load, warm-ups included, begins once all the servers are quiet (bench/quiet-servers.ts).
 */
export async function measureTogether(
  scenario: ScenarioName,
  contenders: readonly Contender[],
  connections: number,
  settings: RunSettings,
): Promise<Row[]> {
  const readers = contenders.map((c) => c.cpu);
  const settleFor = (label: string) => async () => {
    const wait = describeWait(await waitUntilQuiet(readers));
    if (wait) settings.log(`  ${label} ${scenario} c=${connections}: ${wait}`);
  };
  for (const contender of contenders)
    await contender.load(connections, settings.warmup, { settle: settleFor(contender.label) });
  for (const contender of contenders)
    await contender.startCounting(connections, settings.duration, settings.runs);
  for (let i = 0; i < settings.runs; i++) {
    for (const contender of contenders) {
      const m = await contender.load(connections, settings.duration, {
        window: settings.window,
        settle: settleFor(contender.label),
      });
      contender.runs.push(m);
      const during = m.window ? `; ${m.window}` : '';
      settings.log(
        `  ${contender.label} ${scenario} c=${connections} run ${i + 1}: ${describeRun(m)}${during}`,
      );
    }
  }
  const rows: Row[] = [];
  for (const c of contenders) {
    const roundTrips = await c.stopCounting();
    if (roundTrips)
      settings.log(`  ${c.target} ${scenario} c=${connections}: ${describeRoundTrips(roundTrips)}`);
    rows.push({
      scenario,
      target: c.target,
      connections,
      ...summariseRuns(c.runs),
      ...(roundTrips ? { roundTrips } : {}),
    });
  }
  return rows;
}

function describeRoundTrips(rt: RoundTrips): string {
  const idle = rt.background
    ? ` (the idle background's ${rt.background.transactions.toFixed(2)} and ${rt.background.statements.toFixed(2)} taken out)`
    : '';
  return `${rt.transactions.toFixed(2)} transactions, ${rt.statements.toFixed(2)} statements per request over ${rt.requests} requests${idle}`;
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
