/**
 * The probe's account of the event loop's longest stall (bench/servers/loop-stalls.mjs): whether
 * the loop's thread ran, waited for its core, or slept. Only the first and the last are the
 * server holding its loop; `--grown` reports the split beside the longest delay.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { LoopDelay } from '../child.js';
import { largestFirst, pruneTable } from '../growth-report.js';
import { pruneRun } from './helpers/measurement.js';

const PROBE = join(import.meta.dirname, '..', '..', 'bench', 'servers', 'probe.mjs');
const HOLD_MS = 120;
/** The CPU time a worker thread spins for while the loop sleeps, waiting for it. */
const SPUN_MS = 150;

/**
 * A child that, told to, holds its loop HOLD_MS — spinning on the CPU, or asleep in a wait — or
 * fills a heap with a million live objects and then collects it (a full GC, tens of
 * milliseconds). The heap is filled only when asked: filled at start, V8's first major
 * collection of it could come after 'ready' and, on a busy machine (CI), be the longest stall
 * of another test's window (the loop 208 ms on its core while the worker had not yet spun).
 */
const CHILD = `
const { Worker } = require('node:worker_threads');
// The calling thread's CPU time in ms (schedstat), read without allocating: readFileSync of a
// /proc file allocates 64 kB a call, and the scavenges that made fell inside the spin.
const cpuClock = () => {
  const fs = require('node:fs');
  const fd = fs.openSync('/proc/thread-self/schedstat', 'r');
  const bytes = Buffer.alloc(128);
  return () => {
    const n = fs.readSync(fd, bytes, 0, 128, 0);
    let ns = 0;
    for (let i = 0; i < n && bytes[i] !== 32; i++) ns = ns * 10 + bytes[i] - 48;
    return ns / 1e6;
  };
};
// Spins until the thread's own CPU clock has gone on by ms, however busy the machine's cores are.
const spinFor = (clock, ms) => { const end = clock() + ms; while (clock() < end) for (let i = 0; i < 1e5; i++); };
const threadCpu = cpuClock();
// [0] tells the worker to spin, [1] tells the loop it has. The worker counts its own thread's CPU
// time (schedstat), so the loop's stall holds SPUN_MS of it however busy the machine is.
const flags = new Int32Array(new SharedArrayBuffer(8));
const SPIN = 'const flags = new Int32Array(require("node:worker_threads").workerData); ' +
  'const threadCpu = (' + cpuClock.toString() + ')(); Atomics.wait(flags, 0, 0); ' +
  '(' + spinFor.toString() + ')(threadCpu, ${SPUN_MS}); Atomics.store(flags, 1, 1); Atomics.notify(flags, 1); ' +
  // Then it stays, asleep: a thread gone by the stall's end has no CPU time for the sampler to read.
  'Atomics.wait(flags, 0, 1);';
new Worker(SPIN, { eval: true, workerData: flags.buffer }).unref();
process.on('message', (m) => {
  // Spins for HOLD_MS of the loop thread's own CPU time.
  if (m.kind === 'spin') spinFor(threadCpu, ${HOLD_MS});
  if (m.kind === 'sleep') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${HOLD_MS});
  if (m.kind === 'fill') globalThis.kept = Array.from({ length: 1e6 }, (_, i) => ({ i }));
  if (m.kind === 'gc') globalThis.gc();
  // Allocation that keeps two million objects live: V8 marks them concurrently on its pool.
  if (m.kind === 'churn') { const ring = []; for (let i = 0; i < 4e6; i++) ring[i % 2e6] = { i, s: 'x' + i }; globalThis.ring = ring; }
  // A worker thread, started beforehand, spins while the loop sleeps until it has: the core
  // time goes to a thread started after the probe.
  if (m.kind === 'beside') {
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    Atomics.wait(flags, 1, 0, 10000);
  }
  if (m.kind !== 'loop') setTimeout(() => process.send({ kind: 'held' }), 30);
});
process.send({ kind: 'ready' });
setTimeout(() => undefined, 60000); // the probe unrefs the channel: this keeps the child alive
`;

function reply(child: ReturnType<typeof fork>, kind: string): Promise<{ value?: LoopDelay }> {
  return new Promise((resolve) => {
    const listen = (message: { kind: string; value?: LoopDelay }) => {
      if (message.kind !== kind) return;
      child.off('message', listen);
      resolve(message);
    };
    child.on('message', listen);
  });
}

/** What the sampler saw the thread in most often. */
const mostSeen = (seen: Record<string, number> | undefined) => largestFirst(seen ?? {})[0]?.[0];

async function stallAfter(
  child: ReturnType<typeof fork>,
  hold: 'spin' | 'sleep' | 'fill' | 'gc' | 'beside' | 'churn',
) {
  const reset = reply(child, 'loop');
  child.send({ kind: 'loop', reset: true });
  await reset;
  const held = reply(child, 'held');
  child.send({ kind: hold });
  await held;
  const answer = reply(child, 'loop');
  child.send({ kind: 'loop', reset: true });
  return (await answer).value!.longestStall!;
}

describe('bench probe: the longest stall of the event loop', { skip: process.platform !== 'linux' }, () => {
  it('tells a loop held by its own work from one asleep in a system call', { timeout: 30_000 }, async () => {
    const child = fork('--eval', [CHILD], { execArgv: ['--import', PROBE, '--expose-gc'] });
    try {
      await reply(child, 'ready');
      const spun = await stallAfter(child, 'spin');
      assert.ok(spun.gapMs >= HOLD_MS, `gap ${spun.gapMs} ms`);
      assert.ok(spun.ranMs! >= HOLD_MS * 0.9, `ran ${spun.ranMs} of a ${spun.gapMs} ms gap`);
      assert.ok(spun.asleepMs! < HOLD_MS * 0.5, `asleep ${spun.asleepMs} ms while spinning`);
      const slept = await stallAfter(child, 'sleep');
      assert.ok(slept.gapMs >= HOLD_MS, `gap ${slept.gapMs} ms`);
      assert.ok(slept.asleepMs! >= HOLD_MS * 0.5, `asleep ${slept.asleepMs} of a ${slept.gapMs} ms gap`);
      assert.ok(slept.ranMs! < HOLD_MS * 0.5, `ran ${slept.ranMs} ms while asleep`);
      // Atomics.wait sleeps in futex(2); the spin is on the CPU.
      assert.equal(mostSeen(slept.seen), 'futex', JSON.stringify(slept.seen));
      assert.equal(mostSeen(spun.seen), 'running', JSON.stringify(spun.seen));
      // The spin still allocates a little (the clock's doubles, readSync's own objects): a scavenge
      // of a few ms may fall in it (2.95 ms on CI, Node 22). What must not happen is the stall put
      // down to a collection that was not there.
      const collectedMs = (gc: Record<string, number> | undefined) =>
        Object.values(gc ?? {}).reduce((sum, ms) => sum + ms, 0);
      for (const [held, stall] of [
        ['spinning', spun],
        ['asleep', slept],
      ] as const) {
        assert.ok(
          collectedMs(stall.gcMs) < HOLD_MS * 0.1,
          `collections ${JSON.stringify(stall.gcMs)} while ${held}`,
        );
      }
      // A full collection of a large heap: the stall is V8's pause.
      await stallAfter(child, 'fill');
      const collected = await stallAfter(child, 'gc');
      const paused = collected.gcMs?.major ?? 0;
      assert.ok(paused >= collected.gapMs * 0.5, `major GC ${paused} ms of a ${collected.gapMs} ms gap`);
    } finally {
      child.kill();
    }
  });

  it("names the role of the server's thread that took the CPU during a stall", {
    timeout: 30_000,
  }, async () => {
    const child = fork('--eval', [CHILD], { execArgv: ['--import', PROBE] });
    try {
      await reply(child, 'ready');
      const stall = await stallAfter(child, 'beside');
      assert.ok(stall.gapMs >= SPUN_MS, `gap ${stall.gapMs} ms`);
      const threads = stall.threadsMs ?? {};
      const [busiest, ms] = largestFirst(threads)[0] ?? [];
      // The worker spins through the whole sleep; the sampler's window starts 10 ms in.
      assert.equal(busiest, 'started later (worker threads)', JSON.stringify(threads));
      assert.ok(ms! >= SPUN_MS * 0.6, JSON.stringify(threads));
      assert.ok((threads['the loop'] ?? 0) < SPUN_MS * 0.3, JSON.stringify(threads));
    } finally {
      child.kill();
    }
  });

  it("counts V8's concurrent marking as its platform pool's, with the pool as npm start sizes it", {
    timeout: 30_000,
  }, async () => {
    const child = fork('--eval', [CHILD], { execArgv: ['--import', PROBE, '--v8-pool-size=0'] });
    try {
      await reply(child, 'ready');
      const stall = await stallAfter(child, 'churn');
      const threads = stall.threadsMs ?? {};
      assert.ok((threads["V8's platform pool"] ?? 0) >= 5, JSON.stringify(threads));
      assert.ok(
        (threads['libuv pool or node'] ?? 0) < threads["V8's platform pool"]!,
        JSON.stringify(threads),
      );
    } finally {
      child.kill();
    }
  });

  it('reports the split under the prune table', () => {
    const loop = (gapMs: number, ranMs: number, waitedMs: number): LoopDelay => ({
      maxMs: gapMs - 5,
      p99Ms: 1,
      meanMs: 1,
      longestStall: {
        gapMs,
        ranMs,
        waitedMs,
        otherThreadsMs: 0.5,
        asleepMs: gapMs - ranMs - waitedMs,
        seen: { running: 2, pread64: 20 },
        gcMs: { major: 12.25 },
        threadsMs: { 'the loop': 4.2, "V8's platform pool": 48.5, 'this sampler': 0.4 },
      },
    });
    const table = pruneTable(
      pruneRun(2, {
        wholeWindow: { before: { count: 100, p99: 2 }, during: { count: 100, p99: 3 } },
        beforeLoop: loop(20, 15, 3),
        duringLoop: loop(59.3, 4.2, 52.6),
      }),
    );
    assert.match(
      table,
      /before the prune a 20 ms gap: 15 ms on the core, 3 ms waiting for it \(at most 0\.5 ms of it to the server's other threads\), 2 ms asleep in a system call[^;]*; during the prune a 59\.3 ms gap: 4\.2 ms on the core, 52\.6 ms waiting for it.* \(seen every 2 ms in: pread64 ×20, running ×2\), garbage collection in it: major 12\.3 ms — CPU of the server's threads from 10 ms in: V8's platform pool 48\.5 ms, the loop 4\.2 ms\./,
    );
  });
});
