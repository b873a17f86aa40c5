/**
 * Keeps a SQLite database file's pages in the machine's page cache while a bulk job (the server's
 * prune) runs, by reading the file through on a worker thread at the lowest CPU priority — never
 * on the event loop.
 *
 * Why: the server's statements are synchronous (better-sqlite3), so a page the kernel has dropped
 * is read back from the disk *on the event loop*. A prune walks pages no request has touched for
 * minutes, and a machine that reclaims idle page cache drops exactly those: the VM this was
 * measured on runs DAMON with a `pageout` scheme for unmapped file pages idle 60 s
 * (/sys/kernel/mm/damon/admin), which took the full-size bench file from 2 714 to 2 183 MB
 * resident during a prune, and the event loop waited up to a second in `pread64` for those pages
 * (docs/performance.md, "Where the long holds come from"). A read marks a page accessed
 * (`folio_mark_accessed`), so a pass every `periodMs` keeps every page young, and a page already
 * dropped is read back by the worker, which may wait for the disk without holding a request.
 *
 * A pass over a resident file costs about 0.35 ms of CPU per MB; the worker runs at nice 19
 * (`os.setPriority(0, …)` applies to the calling thread on Linux), so where it shares a core
 * with the event loop the scheduler gives the loop that core first. The first pass completes
 * before the job starts. A file larger than `maxBytes` is not warmed: reading it through would
 * evict more than it keeps.
 */

import { totalmem } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Under the 60 s idle age of the reclaim measured, with room for a pass slowed by its priority. */
export const WARM_PERIOD_MS = 20_000;

/** The warming thread's nice value: the lowest priority, so it only takes a core's idle time. */
export const WARM_NICE = 19;

export interface WarmPass {
  readonly bytes: number;
  /** Wall time of the pass. */
  readonly ms: number;
  /** The warming thread's nice value as it read (WARM_NICE where the system allows it). */
  readonly nice: number;
}

export interface WarmOptions {
  readonly periodMs?: number;
  /** Files larger than this are not warmed (default: a quarter of the machine's memory). */
  readonly maxBytes?: number;
  /** Told each completed pass. */
  readonly onPass?: (pass: WarmPass) => void;
}

// Evaluated CommonJS, as wal-checkpoints.ts's worker. A pass answers {bytes, ms, nice}, or
// {bytes: -1} when the file is missing, unreadable or over maxBytes (warming is advisory).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, fstatSync, readSync, closeSync } = require('node:fs');
const { setPriority, getPriority } = require('node:os');
try { setPriority(0, workerData.nice); } catch {}
const chunk = Buffer.allocUnsafe(1 << 20);
parentPort.on('message', () => {
  const started = performance.now();
  let fd;
  try {
    fd = openSync(workerData.file, 'r');
    const size = fstatSync(fd).size;
    if (size > workerData.maxBytes) throw new Error('too large');
    let position = 0;
    while (position < size) {
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) break;
      position += read;
    }
    parentPort.postMessage({ bytes: position, ms: performance.now() - started, nice: getPriority(0) });
  } catch {
    parentPort.postMessage({ bytes: -1 });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
});
`;

/** Runs `job` with `file` read through before it starts and every `periodMs` until it ends. */
export async function whileWarm<T>(
  file: string,
  job: () => Promise<T>,
  options: WarmOptions = {},
): Promise<T> {
  const periodMs = options.periodMs ?? WARM_PERIOD_MS;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, maxBytes: options.maxBytes ?? totalmem() / 4, nice: WARM_NICE },
  });
  worker.unref();
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  const pass = () =>
    new Promise<boolean>((resolve) => {
      const settle = (warmable: boolean) => {
        worker.off('message', answered);
        worker.off('error', failed);
        worker.off('exit', failed);
        resolve(warmable);
      };
      const answered = (pass: WarmPass) => {
        if (pass.bytes < 0) return settle(false);
        if (!done) options.onPass?.(pass);
        settle(true);
      };
      const failed = () => settle(false);
      worker.on('message', answered);
      worker.once('error', failed);
      worker.once('exit', failed);
      worker.postMessage('pass');
    });
  const schedule = () => {
    timer = setTimeout(() => {
      void pass().then((warmable) => {
        if (warmable && !done) schedule();
      });
    }, periodMs);
    timer.unref();
  };
  if (await pass()) schedule();
  try {
    return await job();
  } finally {
    done = true;
    clearTimeout(timer);
    // A pass under way is cut short: the job no longer needs the pages.
    await worker.terminate();
  }
}
