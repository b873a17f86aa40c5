/**
 * Waiting for the servers to go quiet before a load. Refilling a pool mints hundreds of grants
 * through a server, and the server can go on working after the last answer: node-oidc-provider kept
 * about 80% of the shared server core for seconds after its revocation pool was minted, so the next
 * run, whichever server it measured, got only half a core (docs/performance.md, "Revocation at 16
 * connections"). All servers share one pinned core, so every one of them must be quiet, not only the
 * one about to be measured.
 */

/** Reads one server's CPU seconds so far; undefined where that cannot be read (not Linux). */
export type CpuReader = () => number | undefined;

export interface QuietOptions {
  /** The window one reading covers, in ms. /proc counts CPU in 10 ms ticks, so a few dozen ticks. */
  readonly windowMs: number;
  /** Quiet: the servers together used at most this share of one core over a window. */
  readonly share: number;
  /** Gives up after this long (another service may hold the core), in ms. */
  readonly limitMs: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

export interface Quiet {
  readonly quiet: boolean;
  /** How long the wait took, in ms. */
  readonly waitedMs: number;
  /** The servers' share of one core in the last window. */
  readonly share: number;
}

/** 250 ms at most 10%: an idle server reads 0–1 ticks there, a busy one 20 or more. */
export const QUIET: QuietOptions = { windowMs: 250, share: 0.1, limitMs: 10_000 };

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sums every reader; undefined when any one cannot be read. */
function total(readers: readonly CpuReader[]): number | undefined {
  let sum = 0;
  for (const read of readers) {
    const seconds = read();
    if (seconds === undefined) return undefined;
    sum += seconds;
  }
  return sum;
}

/** Answers once a whole window passed with the servers at most at `share` of a core, or at the limit. */
export async function waitUntilQuiet(
  readers: readonly CpuReader[],
  options: QuietOptions = QUIET,
): Promise<Quiet> {
  const sleep = options.sleep ?? pause;
  const now = options.now ?? Date.now;
  const start = now();
  let before = total(readers);
  if (before === undefined) return { quiet: true, waitedMs: 0, share: 0 };
  for (;;) {
    await sleep(options.windowMs);
    const after = total(readers);
    if (after === undefined) return { quiet: true, waitedMs: now() - start, share: 0 };
    const share = (after - before) / (options.windowMs / 1000);
    const waitedMs = now() - start;
    if (share <= options.share) return { quiet: true, waitedMs, share };
    if (waitedMs >= options.limitMs) return { quiet: false, waitedMs, share };
    before = after;
  }
}

/** A log line for a wait worth mentioning (longer than one window), else undefined. */
export function describeWait(q: Quiet, options: QuietOptions = QUIET): string | undefined {
  const share = `${Math.round(q.share * 100)}% of a core`;
  if (!q.quiet)
    return `servers still busy after ${(q.waitedMs / 1000).toFixed(1)} s (${share}): measured anyway`;
  if (q.waitedMs > options.windowMs * 1.5)
    return `waited ${(q.waitedMs / 1000).toFixed(1)} s for the servers to go quiet`;
  return undefined;
}
