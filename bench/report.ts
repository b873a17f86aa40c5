/**
 * The results table and the targets of issue 22, as Markdown: printed, and written into
 * docs/performance.md between markers so the hand-written analysis around it stays.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Machine } from './machine.js';
import type { Row } from './measure.js';
import type { BenchOptions } from './options.js';
import { SCENARIOS, type ScenarioName } from './scenarios.js';
import { rateLimitEnv } from './targets/schoolauth.js';

export const REPORT_PATH = join(import.meta.dirname, '..', 'docs', 'performance.md');

export interface Target {
  readonly what: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}

const PEER_RATIO = 2;
/** Issue 22's targets against bare Fastify (issue 7 asked for 70%, 70% and 60%). */
const BASELINE_RATIO: Partial<Record<ScenarioName, number>> = { discovery: 0.85, jwks: 0.85, api: 0.8 };

const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '–' : n.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined && b > 0 ? a / b : undefined;

function find(rows: readonly Row[], scenario: Row['scenario'], target: Row['target'], c: number) {
  return rows.find((r) => r.scenario === scenario && r.target === target && r.connections === c);
}

function cell(row: Row | undefined): string[] {
  if (!row) return ['', '', '', ''];
  if (row.skipped) return [row.skipped, '', '', ''];
  return [fmt(row.rps), fmt(row.p50, 1), fmt(row.p99, 1), fmt(row.cpuPerRequest)];
}

export function resultsTable(rows: readonly Row[], connections: readonly number[]): string {
  const lines = [
    '| Scenario | Conns | schoolauth req/s | p50 ms | p99 ms | CPU µs/req | node-oidc-provider req/s | p50 ms | p99 ms | CPU µs/req | × peer | × bare Fastify |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const scenario of SCENARIOS) {
    for (const c of connections) {
      const ours = find(rows, scenario.name, 'schoolauth', c);
      const peer = find(rows, scenario.name, 'node-oidc-provider', c);
      if (!ours && !peer) continue;
      const bare = find(rows, scenario.name, 'bare-fastify', c);
      const vsPeer = ratio(ours?.rps, peer?.rps);
      const vsBare = scenario.baseline ? ratio(ours?.rps, bare?.rps) : undefined;
      lines.push(
        `| ${scenario.title} | ${c} | ${cell(ours).join(' | ')} | ${cell(peer).join(' | ')} | ${vsPeer === undefined ? '' : `${fmt(vsPeer, 2)}×`} | ${vsBare === undefined ? '' : `${fmt(vsBare * 100)}%`} |`,
      );
    }
  }
  for (const scenario of SCENARIOS) {
    for (const c of connections) {
      const bare = find(rows, scenario.name, 'bare-fastify', c);
      if (bare) {
        lines.push(
          `| Bare Fastify, small JSON (runs alternating with ${scenario.name}) | ${c} | ${cell(bare).join(' | ')} | | | | | | |`,
        );
      }
    }
  }
  return lines.join('\n');
}

/** Issue 7's targets, judged at every connection count measured. */
export function judgeTargets(rows: readonly Row[], connections: readonly number[]): Target[] {
  const targets: Target[] = [];
  for (const scenario of SCENARIOS) {
    for (const c of connections) {
      const ours = find(rows, scenario.name, 'schoolauth', c);
      const peer = find(rows, scenario.name, 'node-oidc-provider', c);
      if (peer && !peer.skipped) {
        const r = ratio(ours?.rps, peer.rps);
        targets.push({
          what: `${scenario.name} c=${c}: ≥ ${PEER_RATIO}× node-oidc-provider`,
          measured: r === undefined ? (ours?.skipped ?? 'not measured') : `${fmt(r, 2)}×`,
          met: r === undefined ? undefined : r >= PEER_RATIO,
        });
      }
      const floor = BASELINE_RATIO[scenario.name];
      const bare = find(rows, scenario.name, 'bare-fastify', c);
      if (floor !== undefined && bare && ours) {
        const r = ratio(ours.rps, bare.rps);
        targets.push({
          what: `${scenario.name} c=${c}: ≥ ${floor * 100}% of bare Fastify`,
          measured: r === undefined ? (ours.skipped ?? 'not measured') : `${fmt(r * 100)}%`,
          met: r === undefined ? undefined : r >= floor,
        });
      }
    }
  }
  return targets;
}

export function targetsTable(targets: readonly Target[]): string {
  const mark = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? 'met' : 'NOT met');
  return [
    '| Target | Measured | Status |',
    '| --- | ---: | --- |',
    ...targets.map((t) => `| ${t.what} | ${t.measured} | ${mark(t.met)} |`),
  ].join('\n');
}

/** The generated block of docs/performance.md a run writes: one per rate-limit configuration. */
export function resultsBlock(options: Pick<BenchOptions, 'rateLimits'>): string {
  return options.rateLimits ? 'results' : 'results-no-rate-limits';
}

function configuration(options: Pick<BenchOptions, 'rateLimits'>): string {
  const env = Object.entries(rateLimitEnv(options.rateLimits))
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  return options.rateLimits
    ? `schoolauth as shipped: rate limits on, every limit raised above the load so none refuses (${env}).`
    : `schoolauth with rate limits off (${env}; \`--no-rate-limits\`): the configuration measured before issue 22.`;
}

export function conditions(machine: Machine, options: BenchOptions): string {
  return [
    `- ${configuration(options)}`,
    `- Date: ${machine.date}; Node ${machine.node}; ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB RAM; load average before the run: ${machine.load}.`,
    `- Pinning: ${machine.pinning}.`,
    `- autocannon, connections ${options.connections.join(' and ')}, ${options.warmup} s warm-up then ${options.runs} run(s) of ${options.duration} s each, taking turns between the servers; medians of the runs. req/s counts 2xx answers only. CPU µs/req: the server's CPU time (from /proc) per answer during the runs.`,
  ].join('\n');
}

const START = (name: string) => `<!-- bench:${name}:start -->`;
const END = (name: string) => `<!-- bench:${name}:end -->`;

/** Replaces the generated block `name` in the document (appending it when missing). */
export function writeBlock(path: string, name: string, content: string): void {
  const block = `${START(name)}\n${content}\n${END(name)}`;
  const doc = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const start = doc.indexOf(START(name));
  const end = doc.indexOf(END(name));
  const next =
    start >= 0 && end > start
      ? doc.slice(0, start) + block + doc.slice(end + END(name).length)
      : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, next);
}

/** Each DPoP scenario with the Bearer form it is measured beside (issue 46). */
export const DPOP_PAIRS = [
  ['code', 'dpop-code'],
  ['refresh', 'dpop-refresh'],
  ['api', 'dpop-api'],
] as const satisfies ReadonlyArray<readonly [ScenarioName, ScenarioName]>;

const DPOP_NAMES: ReadonlySet<ScenarioName> = new Set(DPOP_PAIRS.flat());

/** A run of the DPoP pairs only writes the DPoP block alone (the as-shipped block stays). */
export function onlyDpopPairs(scenarios: readonly ScenarioName[]): boolean {
  return scenarios.every((name) => DPOP_NAMES.has(name));
}

/**
 * The DPoP forms beside their Bearer forms on schoolauth: the server's CPU µs per answer of each
 * and the difference; `verifyMicros` is one ES256 verification by jose with an imported key
 * (bench/dpop.ts), the yardstick of the issue's target for the protected GET.
 */
export function dpopTable(
  rows: readonly Row[],
  connections: readonly number[],
  verifyMicros: number,
): string {
  const lines = [
    '| Bearer form → DPoP form | Conns | Bearer req/s | DPoP req/s | Bearer CPU µs/req | DPoP CPU µs/req | DPoP − Bearer µs | in ES256 verifications |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [plain, dpop] of DPOP_PAIRS) {
    for (const c of connections) {
      const b = find(rows, plain, 'schoolauth', c);
      const d = find(rows, dpop, 'schoolauth', c);
      if (!b && !d) continue;
      if (b?.skipped || d?.skipped) {
        lines.push(`| ${plain} → ${dpop} | ${c} | ${b?.skipped ?? ''} | ${d?.skipped ?? ''} | | | | |`);
        continue;
      }
      const diff = b && d ? d.cpuPerRequest! - b.cpuPerRequest! : undefined;
      lines.push(
        `| ${plain} → ${dpop} | ${c} | ${fmt(b?.rps)} | ${fmt(d?.rps)} | ${fmt(b?.cpuPerRequest)} | ${fmt(d?.cpuPerRequest)} | ${fmt(diff)} | ${diff === undefined ? '' : fmt(diff / verifyMicros, 2)} |`,
      );
    }
  }
  return lines.join('\n');
}

/** Issue 46: the DPoP protected GET costs at most one signature verification more than the Bearer one. */
export function judgeDpop(
  rows: readonly Row[],
  connections: readonly number[],
  verifyMicros: number,
): Target[] {
  const targets: Target[] = [];
  for (const c of connections) {
    const b = find(rows, 'api', 'schoolauth', c);
    const d = find(rows, 'dpop-api', 'schoolauth', c);
    if (!b || !d || b.skipped || d.skipped) continue;
    const diff = d.cpuPerRequest! - b.cpuPerRequest!;
    targets.push({
      what: `dpop-api c=${c}: ≤ Bearer GET + one ES256 verification (${fmt(verifyMicros)} µs)`,
      measured: `+${fmt(diff)} µs (${fmt(diff / verifyMicros, 2)} verifications)`,
      met: diff <= verifyMicros,
    });
  }
  return targets;
}
