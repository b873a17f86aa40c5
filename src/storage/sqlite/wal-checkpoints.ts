/**
 * SQLite's WAL checkpoints on a worker thread. By default the connection that commits the
 * 1000th page of the WAL copies it back into the database file and fsyncs it, on the event loop:
 * under token traffic that was a stall of milliseconds every ~50 requests, 10–12% of the
 * server's time spent waiting (docs/performance.md). Here a worker with a connection of its own
 * runs a PASSIVE checkpoint (it never waits for, nor blocks, the server's connection) every
 * `intervalMs`; the server's connection checkpoints by itself only if the WAL ever grows past
 * `SAFETY_PAGES` (the worker stopped or fell behind).
 *
 * Under sustained writes a PASSIVE checkpoint never lets the WAL start over: a writer rewinds it
 * only when every frame is already in the database file, and by the time a round ends the next
 * commit has appended more. The WAL then grew without bound, and past `SAFETY_PAGES` every
 * commit also checkpointed on the event loop (a revocation benchmark at 40% CPU, p99 93 ms;
 * docs/performance.md 16). So when a round finds `restartPages` in the WAL, the worker asks the
 * server for a quiet moment: the driver commits its pending batch and holds every query and
 * transaction back (queued, the event loop runs on) while the worker runs one more round with no
 * writer, which copies the few frames left; the next commit then writes from the WAL's start.
 * A pause lasts one round (milliseconds) and comes once per `restartPages` written.
 *
 * A bulk writer (the server's prune) writes faster than that: each deleted token dirties pages of
 * its table and of each index, and a prune of 360 000 tokens on a 370 MB file took the WAL from
 * 100 to 5 000–8 700 frames within one round's interval, so it needed a quiet restart every
 * other round, 98 of them, each holding the server's queries 55–124 ms (docs/performance.md
 * "Cost as the database grows"). So such a writer awaits `caughtUp()` between its statements:
 * while the WAL holds under half of `restartPages` frames (wal-index.ts reads how many), at once;
 * past it, the worker runs a round at once and the writer waits for it (requests run meanwhile).
 * With the writer idle the round copies every frame, and the writer's next commit starts the WAL
 * over by itself: the writer's frames never reach `restartPages`, and no pause is needed for them.
 */
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { SQLITE_DRIVER } from './binding.js';
import { framesInWal } from './wal-index.js';

const SAFETY_PAGES = 20_000;

export interface CheckpointOptions {
  readonly intervalMs?: number;
  /** WAL frames (pages) past which a round also restarts the WAL: 4000 pages is 16 MB. */
  readonly restartPages?: number;
}

// Evaluated CommonJS, so the same text runs from the build and from the sources under tsx (a
// worker thread does not inherit tsx's loader); the driver is required by its resolved path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const database = new SQLite(workerData.path);
/** Frames in the WAL after a PASSIVE round; 0 when another process held the lock (next round). */
const checkpoint = () => {
  try {
    return database.pragma('wal_checkpoint(PASSIVE)')[0].log;
  } catch {
    return 0;
  }
};
const timer = setInterval(() => parentPort.postMessage(checkpoint()), workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'round') {
    parentPort.postMessage(checkpoint());
    return;
  }
  if (message === 'quiet') {
    checkpoint();
    parentPort.postMessage('done');
    return;
  }
  clearInterval(timer);
  checkpoint();
  database.close();
  parentPort.close();
});
`;

/** Runs `task` while no query or transaction uses the server's connection (driver.ts). */
type Quiesce = (task: () => Promise<void>) => Promise<void>;

/** The longest a pause for a restart holds the server's queries back, should the worker not answer. */
const QUIET_LIMIT_MS = 1000;

export interface BackgroundCheckpoints {
  /**
   * What a bulk writer awaits between two statements (see the top of this file): at once while
   * the WAL holds under half of `restartPages` frames; otherwise at the end of a round run at
   * once (at most QUIET_LIMIT_MS).
   */
  caughtUp(): Promise<void>;
  /** A last checkpoint, then the worker ends. */
  stop(): Promise<void>;
}

export function checkpointInBackground(
  database: SQLite.Database,
  path: string,
  quiesce: Quiesce,
  { intervalMs = 250, restartPages = 4000 }: CheckpointOptions = {},
): BackgroundCheckpoints {
  database.pragma(`wal_autocheckpoint = ${SAFETY_PAGES}`);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver: SQLITE_DRIVER, path, intervalMs, restartPages },
  });
  // A failed worker leaves checkpoints to the server's connection again, at the default threshold.
  worker.once('error', () => database.pragma('wal_autocheckpoint = 1000'));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let quiet: (() => void) | undefined;
  const roundWithoutWriters = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), QUIET_LIMIT_MS);
      const done = () => {
        clearTimeout(timer);
        quiet = undefined;
        resolve();
      };
      quiet = done;
      worker.postMessage('quiet');
    });
  let restarting = false;
  let nextRound: Array<() => void> = [];
  const roundEnded = () => {
    for (const resolve of nextRound) resolve();
    nextRound = [];
  };
  // Messages: 'done' (the quiet round), or the frames a round left in the WAL.
  worker.on('message', (message: 'done' | number) => {
    if (message === 'done') {
      quiet?.();
      return;
    }
    roundEnded();
    if (message < restartPages || restarting) return;
    restarting = true;
    void quiesce(roundWithoutWriters).finally(() => {
      restarting = false;
    });
  });
  let ended = false;
  void exited.then(() => {
    ended = true;
    quiet?.();
    roundEnded();
  });
  const caughtUp = (): Promise<void> => {
    if (ended || framesInWal(path) < restartPages / 2) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, QUIET_LIMIT_MS);
      if (nextRound.length === 0) worker.postMessage('round');
      nextRound.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  };
  return {
    caughtUp,
    stop: async () => {
      // Unreferenced, a worker does not keep the process alive; stopping waits for its exit.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
