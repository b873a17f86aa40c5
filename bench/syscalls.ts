/**
 * Counts the system calls schoolauth makes per request in one scenario: starts the build, fills
 * the scenario's pool, then attaches `strace -c -f` to the server for a fixed number of
 * requests. System calls are expensive on virtual machines; SQLite's locks (fcntl) and WAL
 * writes (pwrite64) are most of them on the write paths. `--connections` (default 16) shows what
 * more requests in flight share: a turn's group commit, its read transaction, its epoll wake-up.
 *
 *   npm run build && node --import tsx bench/syscalls.ts --scenario code --requests 2000 --connections 64
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Fixture } from './fixture.js';
import { runLoad } from './load.js';
import { positive } from './options.js';
import { SCENARIOS } from './scenarios.js';
import { startSchoolauth } from './targets/schoolauth.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'code' },
    requests: { type: 'string', default: '2000' },
    connections: { type: 'string' },
  },
});
const scenario = SCENARIOS.find((s) => s.name === values.scenario);
if (!scenario) throw new Error(`unknown scenario ${values.scenario}`);
const requests = Number(values.requests);
const connections = Math.round(positive('connections', values.connections, 16));
const target = await startSchoolauth(mkdtempSync(join(tmpdir(), 'schoolauth-syscalls-')), {});
const fixture = await Fixture.prepare(target);
if (scenario.pool) await fixture.ensure(scenario.pool, requests * 2 + 200);
const plan = scenario.plan(fixture);
if (typeof plan === 'string') throw new Error(plan);
await runLoad({ baseUrl: target.server.baseUrl, connections: 16, seconds: 1, plan, amount: 200 });
const strace = spawn('strace', ['-c', '-f', '-p', String(target.server.pid)], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
let report = '';
strace.stderr.on('data', (chunk: Buffer) => {
  report += chunk.toString();
});
await new Promise((resolve) => setTimeout(resolve, 1000));
const m = await runLoad({
  baseUrl: target.server.baseUrl,
  connections,
  seconds: 60,
  plan,
  amount: requests,
});
strace.kill('SIGINT');
await new Promise((resolve) => strace.once('exit', resolve));
await target.server.stop();
const answered = m.ok + m.nonOk;
process.stdout.write(
  `${scenario.name}: ${answered} answers (${m.nonOk} not 2xx) while traced, ${connections} connections\n`,
);
for (const line of report.split('\n')) {
  const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/.exec(line);
  if (match)
    process.stdout.write(`${match[2]!.padEnd(16)} ${(Number(match[1]) / answered).toFixed(2)} per request\n`);
}
