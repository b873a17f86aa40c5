/** The tables of `--grown`: grown against empty, and the prune under load, with the targets. */

import type { LoopDelay, LoopStall } from './child.js';
import type { FillResult } from './fill.js';
import type { Measurement } from './load.js';
import { median, type Row } from './measure.js';
import type { StatementTimes } from './prune-log.js';
import type { ResponseTimeSummary } from './response-times.js';
import type { ScenarioName } from './scenarios.js';
import { type RestSummary, TIME_BUCKETS_MS, type WarmthSummary } from './server-log.js';

/** Issue 22 item 5. */
export const GROWN_TARGETS = { throughput: 0.9, p99: 1.5, pruneP99: 2, loopMs: 50 } as const;

export interface PruneRun {
  readonly scenario: ScenarioName;
  readonly connections: number;
  readonly before: Measurement;
  /** One-second runs from the prune's start until its log line was seen. */
  readonly during: readonly Measurement[];
  /**
   * Every 2xx answer of the "before" run and of all the one-second runs during the prune: the p99
   * of each window as a whole, to the answer's own measured time.
   */
  readonly wholeWindow: { readonly before: ResponseTimeSummary; readonly during: ResponseTimeSummary };
  readonly beforeLoop: LoopDelay | undefined;
  readonly duringLoop: LoopDelay | undefined;
  /** From the bench firing the job to the job's log line, to the millisecond. */
  readonly pruneSeconds: number;
  /** Rows deleted, by kind, as the server logged them. */
  readonly pruned: Record<string, number>;
  /** Per kind of row, what its statements took, as the server logged them. */
  readonly statements?: Record<string, StatementTimes>;
  /** The passes that kept the database file warm, as the server logged them. */
  readonly warmth?: WarmthSummary;
  /** The prune's rests between statements, as the server logged them. */
  readonly rests?: RestSummary;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

export function fillLine(result: FillResult): string {
  const total = Object.values(result.rows).reduce((a, b) => a + b, 0);
  const parts = Object.entries(result.rows)
    .filter(([, n]) => n > 0)
    .map(([table, n]) => `${fmt(n)} ${table}`);
  return `${fmt(total)} rows (${parts.join(', ')}) in ${fmt(result.seconds, 1)} s (${fmt(total / result.seconds)} rows/s)`;
}

/**
 * Rows come in pairs from measureTogether: the empty database's, then the grown one's, per
 * scenario and connection count.
 */
export function grownTable(rows: readonly Row[], connections: readonly number[]): string {
  const lines = [
    '| scenario | conns | empty req/s | grown req/s | ratio (≥ 90%) | empty p99 ms | grown p99 ms | ratio (≤ 1.5×) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (let i = 0; i + 1 < rows.length; i += 2) {
    const empty = rows[i]!;
    const grown = rows[i + 1]!;
    if (!connections.includes(empty.connections)) continue;
    const rps = (grown.rps ?? 0) / Math.max(1e-9, empty.rps ?? 0);
    const p99 = (grown.p99 ?? 0) / Math.max(1e-9, empty.p99 ?? 0);
    lines.push(
      `| ${empty.scenario} | ${empty.connections} | ${fmt(empty.rps ?? 0)} | ${fmt(grown.rps ?? 0)} | ` +
        `${fmt(rps * 100)}% ${verdict(rps >= GROWN_TARGETS.throughput)} | ${fmt(empty.p99 ?? 0, 1)} | ` +
        `${fmt(grown.p99 ?? 0, 1)} | ${fmt(p99, 2)}× ${verdict(p99 <= GROWN_TARGETS.p99)} |`,
    );
  }
  return lines.join('\n');
}

export function pruneTable(run: PruneRun): string {
  const duringP99 = run.during.length ? Math.max(...run.during.map((m) => m.p99)) : 0;
  const duringRps = run.during.length ? median(run.during.map((m) => m.rps)) : 0;
  const ratio = duringP99 / Math.max(1e-9, run.before.p99);
  const loop = run.duringLoop?.maxMs;
  const nonOk = run.during.reduce((n, m) => n + m.nonOk, 0);
  return [
    '| | before the prune | during the prune | target |',
    '| --- | ---: | ---: | --- |',
    `| req/s | ${fmt(run.before.rps)} | ${fmt(duringRps)} (median of ${run.during.length} one-second runs) | |`,
    wholeWindowRow(run),
    `| p99 ms, worst one-second run | ${fmt(run.before.p99, 1)} | ${fmt(duringP99, 1)} (${secondsOver(run)}) | ≤ 2× before: ${fmt(ratio, 2)}× ${verdict(ratio <= GROWN_TARGETS.pruneP99)} |`,
    `| longest event-loop delay ms | ${fmt(run.beforeLoop?.maxMs ?? Number.NaN, 1)} | ${fmt(loop ?? Number.NaN, 1)} | ≤ 50 ms: ${loop === undefined ? 'not measured' : verdict(loop <= GROWN_TARGETS.loopMs)} |`,
    `| non-2xx answers | ${fmt(run.before.nonOk)} | ${fmt(nonOk)} | 0 |`,
    '',
    `The prune deleted ${fmt(Object.values(run.pruned).reduce((a, b) => a + b, 0))} rows ` +
      `(${Object.entries(run.pruned)
        .filter(([, n]) => n > 0)
        .map(([kind, n]) => `${fmt(n)} ${kind}`)
        .join(', ')}) in ${fmt(run.pruneSeconds, 2)} s under load ` +
      '(from the bench firing the job to its log line).',
    ...stallLines(run.beforeLoop, run.duringLoop),
    ...statementLines(run.statements),
    ...restLines(run.rests),
    ...warmthLines(run.warmth),
  ].join('\n');
}

/**
 * The p99 of every answer in each window, to the hundredth of a millisecond: what "the prune keeps
 * p99 within 2×" reads as over the prune as a whole. The worst one-second run's p99 (the next row)
 * is the stricter reading, over runs of a few thousand answers each in whole milliseconds.
 */
function wholeWindowRow(run: PruneRun): string {
  const { before, during } = run.wholeWindow;
  const ratio = during.p99 / Math.max(1e-9, before.p99);
  return (
    `| p99 ms, every answer of the window | ${fmt(before.p99, 2)} (${fmt(before.count)} answers) | ` +
    `${fmt(during.p99, 2)} (${fmt(during.count)} answers) | ≤ 2× before: ${fmt(ratio, 2)}× ${verdict(ratio <= GROWN_TARGETS.pruneP99)} |`
  );
}

/**
 * What the loop's thread did in its longest stall before and during the prune: only the time it
 * ran, or slept in a system call, is the server holding its loop; the time it waited for its core
 * went to another thread or process sharing that core (bench/servers/loop-stalls.mjs).
 */
function stallLines(before: LoopDelay | undefined, during: LoopDelay | undefined): string[] {
  const lines = [
    ['before', before?.longestStall],
    ['during', during?.longestStall],
  ] as const;
  const described = lines.flatMap(([when, stall]) =>
    stall ? [`${when} the prune ${stallText(stall)}`] : [],
  );
  return described.length
    ? [`Longest stall of the event loop's thread (5 ms ticks): ${described.join('; ')}.`]
    : [];
}

function stallText(stall: LoopStall): string {
  const gap = `a ${fmt(stall.gapMs, 1)} ms gap`;
  if (stall.ranMs === undefined || stall.waitedMs === undefined) return gap;
  return (
    `${gap}: ${fmt(stall.ranMs, 1)} ms on the core, ${fmt(stall.waitedMs, 1)} ms waiting for it ` +
    `(at most ${fmt(stall.otherThreadsMs ?? 0, 1)} ms of it to the server's other threads), ` +
    `${fmt(stall.asleepMs ?? 0, 1)} ms asleep in a system call${seenText(stall.seen)}${gcText(stall.gcMs)}` +
    threadsText(stall.threadsMs)
  );
}

/** A record's entries, the largest value first. */
export const largestFirst = (record: Readonly<Record<string, number>>) =>
  Object.entries(record).sort(([, a], [, b]) => b - a);

/** Which of the server's threads had the CPU meanwhile, the most first (1 ms or more). */
function threadsText(threadsMs: LoopStall['threadsMs']): string {
  const parts = largestFirst(threadsMs ?? {})
    .filter(([, ms]) => ms >= 1)
    .map(([role, ms]) => `${role} ${fmt(ms, 1)} ms`);
  return parts.length ? ` — CPU of the server's threads from 10 ms in: ${parts.join(', ')}` : '';
}

/** V8's pauses inside the stall, by kind. */
function gcText(gcMs: LoopStall['gcMs']): string {
  const parts = Object.entries(gcMs ?? {}).map(([kind, ms]) => `${kind} ${fmt(ms, 1)} ms`);
  return parts.length
    ? `, garbage collection in it: ${parts.join(', ')}`
    : ', no garbage-collection pause in it';
}

/** What the sampler saw the thread in, most often first. */
function seenText(seen: LoopStall['seen']): string {
  if (!seen) return '';
  const parts = largestFirst(seen).map(([what, n]) => `${what} ×${n}`);
  return ` (seen every 2 ms in: ${parts.join(', ')})`;
}

/** Whether the worst second stands alone: the median second's p99, and how many seconds break the bound. */
function secondsOver(run: PruneRun): string {
  const bound = GROWN_TARGETS.pruneP99 * run.before.p99;
  const over = run.during.filter((m) => m.p99 > bound).length;
  const p99s = run.during.map((m) => m.p99);
  return `median second ${fmt(p99s.length ? median(p99s) : 0, 1)}, ${fmt(over)} of ${fmt(run.during.length)} seconds over ${fmt(bound, 1)}`;
}

/** The prune's rests (src/ops/prune-rest.ts): how many came under load, and how long in all. */
function restLines(rests: RestSummary | undefined): string[] {
  if (!rests) return [];
  return [
    '',
    `It rested ${fmt(rests.underLoad + rests.idle)} times between statements, ${fmt(rests.underLoad)} of them ` +
      `with requests being served (${fmt(rests.ms / 1000, 1)} s of rest asked for in all).`,
  ];
}

/** The file's read-through passes on a worker thread (src/storage/sqlite/file-warmth.ts). */
function warmthLines(warmth: WarmthSummary | undefined): string[] {
  if (!warmth) return [];
  if (warmth.passes === 0) return ['', 'The database file was not read through (too large, or not a file).'];
  return [
    '',
    `The database file was read through ${fmt(warmth.passes)} times on a worker thread to keep it warm ` +
      `(${fmt(warmth.bytes / 2 ** 20)} MB in all, ${fmt(warmth.ms / 1000, 1)} s of reads; the first before the prune's first statement).`,
  ];
}

/** How many statements took ≤ 3, ≤ 10, ≤ 30 ms and longer (TIME_BUCKETS_MS). */
function histogramText(histogram: readonly number[] | undefined): string {
  if (histogram?.length !== TIME_BUCKETS_MS.length + 1) return '';
  const bounds = [...TIME_BUCKETS_MS.map((ms) => `≤ ${ms}`), `> ${TIME_BUCKETS_MS.at(-1)} ms`];
  return `, by time ${bounds.join(' / ')}: ${histogram.map((n) => fmt(n)).join(' / ')}`;
}

/** The prune's statement times per kind of row, as the server logged them. */
function statementLines(statements: PruneRun['statements']): string[] {
  if (!statements) return [];
  const kinds = Object.entries(statements).map(
    ([kind, t]) =>
      `${kind} ${fmt(t.statements)} statements, ${fmt(t.rows)} rows, slowest ${fmt(t.slowestMs, 1)} ms (${fmt(t.slowestRows)} rows)` +
      histogramText(t.histogram),
  );
  return ['', `Its statements, per kind of row: ${kinds.join('; ')}.`];
}
