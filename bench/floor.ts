/**
 * The framework floor, rung by rung: what each piece between bare Fastify's small JSON answer and
 * schoolauth's discovery answer costs a request (bench/floor-steps.ts).
 *
 * By time (default): every rung and schoolauth itself run pinned to the server core, taking turns
 * run by run as the main bench's servers do; medians of the runs. On a machine whose speed
 * drifts, a rung's few microseconds are within the noise of one run.
 *
 * By instructions (`--instructions`): each rung runs under valgrind's callgrind, which counts the
 * instructions the server executes for a fixed number of requests after a warm-up — the same
 * count whatever else the machine is doing. It counts user space only: the kernel's part (the
 * socket reads and writes) is left out, and is the same for every rung but for the body's bytes.
 *
 *   npm run build && node --import tsx bench/floor.ts [--runs 6] [--duration 3] [--warmup 2] [--connections 16]
 *   npm run build && node --import tsx bench/floor.ts --instructions [--runs 2] [--requests 5000]
 *   … --rungs schoolauth,schoolauth-api   (some rungs only; default all)
 *   … --instructions --keep DIR            (keep each rung's callgrind dump in DIR, for callgrind_annotate)
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, pinSelf, type ServerProcess, startServer } from './child.js';
import { Fixture } from './fixture.js';
import { FLOOR_STEP_TITLES, FLOOR_STEPS, type FloorStep, rungPath } from './floor-steps.js';
import { runLoad } from './load.js';
import { median } from './measure.js';
import { DISCOVERY_PATH } from './oauth.js';
import { positive } from './options.js';
import { PROTECTED, startSchoolauth } from './targets/schoolauth.js';

const SERVER = join(import.meta.dirname, 'servers', 'floor-server.ts');
/** Warm-ups of `--requests` each before the count: V8 has compiled the hot paths by then. */
const WARM_UPS = 4;
const ALL_RUNGS: ReadonlyArray<FloorStep | 'schoolauth' | 'schoolauth-api'> = [
  ...FLOOR_STEPS,
  'schoolauth',
  'schoolauth-api',
];
type RungName = (typeof ALL_RUNGS)[number];

interface Started {
  readonly server: ServerProcess;
  readonly path: string;
  readonly headers?: Record<string, string>;
  /**
   * The server's HOST: valgrind names the pipes callgrind_control talks through after it, so the
   * control command needs the same one.
   */
  readonly host: string | undefined;
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    instructions: { type: 'boolean' },
    requests: { type: 'string' },
    rungs: { type: 'string' },
    keep: { type: 'string' },
  },
});
const RUNGS = rungsOf(values.rungs);
const instructions = values.instructions === true;
const runs = positive('runs', values.runs, instructions ? 2 : 6);
const seconds = positive('duration', values.duration, 3);
const warmup = positive('warmup', values.warmup, 2);
const connections = positive('connections', values.connections, 16);
const requests = positive('requests', values.requests, 5000);

pinSelf();
const workDir = mkdtempSync(join(tmpdir(), 'schoolauth-floor-'));
try {
  const perRung = instructions ? await byInstructions() : await byTime();
  console.log(report(perRung));
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

async function startRung(name: RungName, wrapper?: readonly string[]): Promise<Started> {
  const slow = wrapper ? { wrapper, readyTimeoutMs: 300_000 } : {};
  if (name === 'schoolauth' || name === 'schoolauth-api') {
    const dataDir = mkdtempSync(join(workDir, 'schoolauth-'));
    const target = await startSchoolauth(dataDir, slow);
    if (name === 'schoolauth') return { server: target.server, path: DISCOVERY_PATH, host: '127.0.0.1' };
    // The bench's own fixture: a registered client, a sign-in and consent, a token exchange.
    const token = (await Fixture.prepare(target)).reader?.access_token;
    if (!token) {
      await target.server.stop();
      throw new Error('schoolauth-api: the fixture got no access token');
    }
    const headers = { authorization: `Bearer ${token}` };
    return { server: target.server, path: PROTECTED.path, headers, host: '127.0.0.1' };
  }
  const port = await freePort();
  const server = await startServer(`floor ${name}`, {
    args: ['--import', 'tsx', SERVER],
    env: { FLOOR_STEP: name },
    port,
    readyPath: rungPath(name),
    ...slow,
  });
  return { server, path: rungPath(name), host: process.env.HOST };
}

function load(rung: Started, options: { seconds: number; amount?: number }) {
  return runLoad({
    baseUrl: rung.server.baseUrl,
    connections,
    seconds: options.seconds,
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    pid: rung.server.pid,
    plan: {
      kind: 'static',
      request: { method: 'GET', path: rung.path, ...(rung.headers ? { headers: rung.headers } : {}) },
    },
  });
}

/** CPU µs per request of each rung (from /proc), the runs taking turns. */
async function byTime(): Promise<Map<RungName, number[]>> {
  const started = new Map<RungName, Started>();
  const perRung = new Map<RungName, number[]>(RUNGS.map((name) => [name, []]));
  try {
    for (const name of RUNGS) started.set(name, await startRung(name));
    for (const rung of started.values()) await load(rung, { seconds: warmup });
    for (let run = 0; run < runs; run++) {
      // Each round starts one rung further along, so no rung always runs first or last.
      for (let i = 0; i < RUNGS.length; i++) {
        const name = RUNGS[(i + run) % RUNGS.length]!;
        const measured = await load(started.get(name)!, { seconds });
        assertAllAnswered(name, measured);
        perRung.get(name)!.push(((measured.serverCpuSeconds ?? Number.NaN) / measured.ok) * 1e6);
      }
    }
  } finally {
    for (const rung of started.values()) await rung.server.stop();
  }
  return perRung;
}

/** Instructions per request of each rung, counted by callgrind over `requests` requests. */
async function byInstructions(): Promise<Map<RungName, number[]>> {
  const perRung = new Map<RungName, number[]>(RUNGS.map((name) => [name, []]));
  for (let run = 0; run < runs; run++) {
    for (const name of RUNGS) {
      const out = join(workDir, `${name}-${run}.callgrind`);
      // Instrumentation stays off through start-up and the warm-up, which compiles the hot paths.
      const rung = await startRung(name, [
        'valgrind',
        '--tool=callgrind',
        '--instr-atstart=no',
        '--smc-check=all-non-file',
        `--callgrind-out-file=${out}`,
      ]);
      try {
        for (let i = 0; i < WARM_UPS; i++) {
          assertAllAnswered(name, await load(rung, { seconds: 600, amount: requests }));
        }
        callgrindControl('--instr=on', rung);
        const measured = await load(rung, { seconds: 600, amount: requests });
        assertAllAnswered(name, measured);
        callgrindControl('--dump', rung);
        const perRequest = summaryOf(`${out}.1`) / measured.ok;
        if (values.keep !== undefined) {
          mkdirSync(values.keep, { recursive: true });
          copyFileSync(`${out}.1`, join(values.keep, `${name}-${run + 1}.callgrind`));
        }
        console.error(`run ${run + 1}, ${name}: ${Math.round(perRequest)} instructions a request`);
        perRung.get(name)!.push(perRequest);
      } finally {
        await rung.server.stop();
      }
    }
  }
  return perRung;
}

function callgrindControl(command: string, rung: Started): void {
  const env = { ...process.env };
  if (rung.host === undefined) delete env.HOST;
  else env.HOST = rung.host;
  execFileSync('callgrind_control', [command, String(rung.server.pid)], { env, stdio: 'ignore' });
}

/** `--rungs a,b` (default every rung), in the ladder's order. */
function rungsOf(value: string | undefined): RungName[] {
  if (value === undefined) return [...ALL_RUNGS];
  const asked = value.split(',').map((name) => name.trim());
  const unknown = asked.filter((name) => !(ALL_RUNGS as readonly string[]).includes(name));
  if (unknown.length || !asked.length) {
    throw new Error(`--rungs takes names from ${ALL_RUNGS.join(',')}, not ${unknown.join(',') || 'nothing'}`);
  }
  return ALL_RUNGS.filter((name) => asked.includes(name));
}

/** The instructions a callgrind dump counted (its `summary:` line). */
function summaryOf(path: string): number {
  const match = /^summary: (\d+)$/m.exec(readFileSync(path, 'utf8'));
  if (!match) throw new Error(`${path} has no summary line`);
  return Number(match[1]);
}

function assertAllAnswered(name: RungName, measured: { nonOk: number; errors: number }): void {
  if (measured.nonOk || measured.errors) {
    throw new Error(`${name}: ${measured.nonOk} non-2xx answers and ${measured.errors} errors`);
  }
}

function report(perRung: ReadonlyMap<RungName, number[]>): string {
  const when = new Date().toISOString().slice(0, 16);
  const unit = instructions ? 'instructions/req' : 'CPU µs/req';
  const how = instructions
    ? `${requests} requests counted per run by callgrind after ${WARM_UPS} warm-ups of as many, ${connections} connections`
    : `${connections} connections, ${seconds} s per run, the rungs taking turns`;
  const lines = [
    `Framework floor, ${when}Z: ${how}; ${runs} run(s) per rung, medians.`,
    '',
    `| Rung | ${unit} | added | against the first rung |`,
    '| --- | ---: | ---: | ---: |',
  ];
  const first = median(perRung.get(RUNGS[0]!)!);
  let previous: number | undefined;
  for (const name of RUNGS) {
    const cost = median(perRung.get(name)!);
    const digits = instructions ? 0 : 1;
    const added = previous === undefined ? '' : (cost - previous).toFixed(digits);
    lines.push(
      `| ${FLOOR_STEP_TITLES[name]} | ${cost.toFixed(digits)} | ${added} | ${Math.round((cost / first) * 100)}% |`,
    );
    previous = cost;
  }
  return lines.join('\n');
}
