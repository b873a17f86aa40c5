/**
 * How `--grown` starts the server's prune and sees it end: the probe preload holds the interval
 * timer of the period it is told (and only that one) until the bench fires it, and the prune's end
 * is read from the server's pino log with its time.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pruneTable } from '../growth-report.js';
import { pruneEnd } from '../prune-log.js';
import { pruneRun } from './helpers/measurement.js';

const PROBE = join(import.meta.dirname, '..', '..', 'bench', 'servers', 'probe.mjs');

/** A child with the probe preloaded: a held 60 s interval and an ordinary 20 ms one, counted. */
const CHILD = `
let held = 0, ordinary = 0;
setInterval(() => { held++; }, 60000).unref();
const t = setInterval(() => { ordinary++; }, 20);
process.on('message', (m) => { if (m.kind === 'count') process.send({ kind: 'count', value: { held, ordinary } }); });
setTimeout(() => clearInterval(t), 60000).unref();
process.send({ kind: 'ready', value: {} });
`;

/** The reply of kind `kind` (the probe also answers the child's own "count" with "unknown"). */
function ask(
  child: ReturnType<typeof fork>,
  message: { kind: string },
  kind: string,
): Promise<{ value: Record<string, number> }> {
  return new Promise((resolve) => {
    const listen = (reply: { kind: string; value: Record<string, number> }) => {
      if (reply.kind !== kind) return;
      child.off('message', listen);
      resolve(reply);
    };
    child.on('message', listen);
    child.send(message);
  });
}

describe('bench probe: a held interval timer', () => {
  it('runs only when fired, once per firing, and leaves other timers alone', {
    timeout: 30_000,
  }, async () => {
    const child = fork('--eval', [CHILD], {
      execArgv: ['--import', PROBE, '--input-type=module'],
      env: { ...process.env, BENCH_HELD_INTERVAL_MS: '60000' },
    });
    const ready = new Promise((resolve) => child.once('message', resolve));
    try {
      await ready;
      // The ordinary interval runs as scheduled (waited for, however slow the child's start);
      // the held one does not, however long that took.
      let first = await ask(child, { kind: 'count' }, 'count');
      while (first.value.ordinary === 0) first = await ask(child, { kind: 'count' }, 'count');
      assert.equal(first.value.held, 0);
      const fired = await ask(child, { kind: 'interval:fire' }, 'interval:fired');
      assert.equal(fired.value.timers, 1);
      assert.equal(typeof fired.value.at, 'number');
      assert.equal((await ask(child, { kind: 'count' }, 'count')).value.held, 1);
      await ask(child, { kind: 'interval:fire' }, 'interval:fired');
      assert.equal((await ask(child, { kind: 'count' }, 'count')).value.held, 2);
    } finally {
      child.kill();
    }
  });
});

const line = (entry: object) => JSON.stringify({ level: 30, pid: 1, hostname: 'h', ...entry });

describe('bench prune log', () => {
  const log = [
    line({ time: 1000, msg: 'pruned dead rows', pruned: { grants: 1 } }),
    'not json: pruned dead rows',
    line({ time: 5000, msg: 'request completed' }),
    line({ time: 7000, msg: 'pruned dead rows', pruned: { grants: 2, accessTokens: 9 } }),
    '{"time": 8000, "msg": "pruned dead ro',
  ].join('\n');

  it('answers the first prune that ended after the bench fired it, with its time', () => {
    assert.deepEqual(pruneEnd(log, 2000), { at: 7000, pruned: { grants: 2, accessTokens: 9 } });
  });

  it('adds the statement times the prune logged before its end, when the log has them', () => {
    const times = { accessTokens: { statements: 40, rows: 9, slowestMs: 2.5, slowestRows: 10 } };
    const withTimes = [
      line({ time: 1500, msg: 'prune statement times', statements: { grants: { statements: 1 } } }),
      line({ time: 6900, level: 20, msg: 'prune statement times', statements: times }),
      line({ time: 7000, msg: 'pruned dead rows', pruned: { accessTokens: 9 } }),
    ].join('\n');
    assert.deepEqual(pruneEnd(withTimes, 2000), { at: 7000, pruned: { accessTokens: 9 }, statements: times });
  });

  it('adds the warming passes and the rests logged with the statement times', () => {
    const warmth = { passes: 3, bytes: 3 * 2 ** 20, ms: 41.5 };
    const rests = { underLoad: 40, idle: 2, ms: 610 };
    const withWarmth = [
      line({ time: 6900, level: 20, msg: 'prune statement times', statements: {}, rests, warmth }),
      line({ time: 7000, msg: 'pruned dead rows', pruned: { grants: 1 } }),
    ].join('\n');
    assert.deepEqual(pruneEnd(withWarmth, 2000), {
      at: 7000,
      pruned: { grants: 1 },
      statements: {},
      warmth,
      rests,
    });
  });

  it('answers nothing while no prune has ended since then', () => {
    assert.equal(pruneEnd(log, 7001), undefined);
  });

  it('fails when the prune failed', () => {
    const failed = `${log}\n${line({ time: 9000, msg: 'prune failed; retrying at the next interval', err: { message: 'disk I/O error' } })}`;
    assert.throws(() => pruneEnd(failed, 7001), /prune failed: disk I\/O error/);
  });

  it('reports the statements of each kind by time, from the histogram the server logged', () => {
    const table = pruneTable(
      pruneRun(5, {
        wholeWindow: { before: { count: 5_000, p99: 3.21 }, during: { count: 40_000, p99: 7.1 } },
        statements: {
          accessTokens: { statements: 12, rows: 9, slowestMs: 45.8, slowestRows: 1, histogram: [9, 1, 1, 1] },
          grants: { statements: 1, rows: 1, slowestMs: 0.4, slowestRows: 1 },
        },
        warmth: { passes: 7, bytes: 7 * 2 ** 30, ms: 9_250 },
        rests: { underLoad: 12, idle: 1, ms: 1_480 },
      }),
    );
    assert.match(
      table,
      /It rested 13 times between statements, 12 of them with requests being served \(1\.5 s of rest/,
    );
    assert.match(
      table,
      /accessTokens 12 statements, 9 rows, slowest 45\.8 ms \(1 rows\), by time ≤ 3 \/ ≤ 10 \/ ≤ 30 \/ > 30 ms: 9 \/ 1 \/ 1 \/ 1; grants 1 statements, 1 rows, slowest 0\.4 ms \(1 rows\)\./,
    );
    assert.match(
      table,
      /\| p99 ms, worst one-second run \| 5 \| 5 \(median second 5, 0 of 1 seconds over 10\) \| ≤ 2× before: 1× met \|/,
    );
    assert.match(
      table,
      /\| p99 ms, every answer of the window \| 3\.21 \(5,000 answers\) \| 7\.1 \(40,000 answers\) \| ≤ 2× before: 2\.21× \*\*not met\*\* \|/,
    );
    assert.match(
      table,
      /read through 7 times on a worker thread to keep it warm \(7,168 MB in all, 9\.3 s of reads/,
    );
  });
});
