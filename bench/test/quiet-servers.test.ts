/**
 * The bench waits for every server on the shared core to go quiet before each load, so that work
 * a server goes on doing after a pool refill (node-oidc-provider after minting its revocation pool)
 * is not measured as part of the next run (bench/quiet-servers.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { Contender, measureTogether } from '../measure.js';
import { type CpuReader, describeWait, type QuietOptions, waitUntilQuiet } from '../quiet-servers.js';

/** A clock that moves only when slept on, and readers that say how busy each window was. */
function fakeTime(windows: readonly number[]): { options: QuietOptions; reader: CpuReader } {
  let now = 0;
  let cpu = 0;
  let window = 0;
  const options: QuietOptions = {
    windowMs: 250,
    share: 0.1,
    limitMs: 1000,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      cpu += (windows[window++] ?? 0) * (ms / 1000);
    },
  };
  return { options, reader: () => cpu };
}

describe('waiting for the servers to go quiet', () => {
  it('answers after the first window in which the servers used at most the quiet share', async () => {
    const { options, reader } = fakeTime([0.75, 0.5, 0.25, 0.0625]);
    const q = await waitUntilQuiet([reader], options);
    assert.deepEqual(q, { quiet: true, waitedMs: 1000, share: 0.0625 });
    assert.equal(describeWait(q, options), 'waited 1.0 s for the servers to go quiet');
  });

  it('counts every server, so one busy server keeps the others waiting', async () => {
    const busy = fakeTime([0.6, 0]);
    const idle = fakeTime([]);
    const q = await waitUntilQuiet([idle.reader, busy.reader], busy.options);
    assert.equal(q.waitedMs, 500);
  });

  it('gives up at the limit and says the run was measured anyway', async () => {
    const { options, reader } = fakeTime(Array(10).fill(0.875));
    const q = await waitUntilQuiet([reader], options);
    assert.deepEqual(q, { quiet: false, waitedMs: 1000, share: 0.875 });
    assert.equal(describeWait(q, options), 'servers still busy after 1.0 s (88% of a core): measured anyway');
  });

  it('does not wait where CPU time cannot be read', async () => {
    const { options } = fakeTime([1]);
    assert.deepEqual(await waitUntilQuiet([() => undefined], options), {
      quiet: true,
      waitedMs: 0,
      share: 0,
    });
  });

  it('says nothing of a wait of one quiet window', async () => {
    const { options, reader } = fakeTime([0]);
    assert.equal(describeWait(await waitUntilQuiet([reader], options), options), undefined);
  });
});

/**
 * A server still busy after it answered: a worker thread spins SPIN_MS of wall time from the
 * start, while the main thread answers every request and counts those that came during the spin.
 */
const SPIN_MS = 800;
const BUSY_SERVER = `
const { Worker } = require('node:worker_threads');
const { createServer } = require('node:http');
let spinning = true;
let during = 0;
const worker = new Worker(
  "require('node:worker_threads').parentPort.postMessage('spinning');" +
  'const end = Date.now() + ${SPIN_MS}; while (Date.now() < end) {}',
  { eval: true },
);
worker.on('exit', () => { spinning = false; });
worker.once('message', () => {
  const server = createServer((req, res) => {
    if (req.url === '/during') return res.end(String(during));
    if (spinning) during++;
    res.end('{}');
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
});
`;

describe('the bench measuring a scenario', () => {
  it('sends no request, warm-up included, while a server on the core is still busy', async () => {
    const child = spawn(process.execPath, ['-e', BUSY_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      const baseUrl = `http://127.0.0.1:${Number(line.toString())}`;
      const lines: string[] = [];
      const contender = Contender.baseline(baseUrl, '/', child.pid!);
      const settings = { duration: 0.3, warmup: 0.2, runs: 1, log: (l: string) => lines.push(l) };
      const [row] = await measureTogether('discovery', [contender], 1, settings);
      assert.ok((row?.rps ?? 0) > 0, 'the run was measured');
      const during = await (await fetch(`${baseUrl}/during`)).text();
      assert.equal(during, '0', 'requests answered while the worker still spun');
      assert.match(lines[0] ?? '', /bare-fastify discovery c=1: waited \d\.\d s for the servers to go quiet/);
    } finally {
      child.kill();
    }
  });
});
