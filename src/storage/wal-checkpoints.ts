/**
 * SQLite's WAL checkpoints on a worker thread. By default the connection that commits the
 * 1000th page of the WAL copies it back into the database file and fsyncs it, on the event loop:
 * under token traffic that was a stall of milliseconds every ~50 requests, 10–12% of the
 * server's time spent waiting (docs/performance.md). Here a worker with a connection of its own
 * runs a PASSIVE checkpoint (it never waits for, nor blocks, the server's connection) every
 * `intervalMs`; the server's connection checkpoints by itself only if the WAL ever grows past
 * `SAFETY_PAGES` (the worker stopped or fell behind).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

const SAFETY_PAGES = 20_000;

// Evaluated CommonJS, so the same text runs from the build and from the sources under tsx (a
// worker thread does not inherit tsx's loader); the driver is required by its resolved path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const database = new SQLite(workerData.path);
const checkpoint = () => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Locked by another process (the CLI): the next round tries again.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  checkpoint();
  database.close();
  parentPort.close();
});
`;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

export interface BackgroundCheckpoints {
  /** A last checkpoint, then the worker ends. */
  stop(): Promise<void>;
}

export function checkpointInBackground(
  database: SQLite.Database,
  path: string,
  intervalMs = 250,
): BackgroundCheckpoints {
  database.pragma(`wal_autocheckpoint = ${SAFETY_PAGES}`);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: DRIVER, path, intervalMs } });
  // A failed worker leaves checkpoints to the server's connection again, at the default threshold.
  worker.once('error', () => database.pragma('wal_autocheckpoint = 1000'));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop: async () => {
      // Unreferenced, a worker does not keep the process alive; stopping waits for its exit.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
