/**
 * Profiles schoolauth under one scenario: starts the build with the bench probe preloaded, drives
 * the scenario with the same fixtures and load as the benchmark, profiles only the load
 * (node:inspector, started and stopped over IPC) and prints where the CPU time went — by
 * package and by function (self time).
 *
 *   npm run build && node --import tsx bench/profile.ts --scenario discovery --seconds 10
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pinSelf } from './child.js';
import { Fixture } from './fixture.js';
import { runLoad } from './load.js';
import { SCENARIOS } from './scenarios.js';
import { startSchoolauth } from './targets/schoolauth.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

/** Groups a script URL into what a reader cares about: our code, a package, or Node itself. */
function ownerOf(url: string): string {
  if (url === '') return '(native / gc / idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node core';
  const ours = /\/dist\/(src\/.*)$/.exec(url);
  return ours ? `schoolauth ${ours[1]}` : url;
}

function tally(profile: CpuProfile): { byOwner: Map<string, number>; byFunction: Map<string, number> } {
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    if (!count) continue;
    const owner = ownerOf(node.callFrame.url);
    const group = owner.startsWith('schoolauth') ? 'schoolauth' : owner;
    byOwner.set(group, (byOwner.get(group) ?? 0) + count);
    const name = functionName(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + count);
  }
  return { byOwner, byFunction };
}

function functionName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${ownerOf(url)}:${lineNumber + 1}`;
}

/** Inclusive time: each sample counts once for every distinct function on its stack. */
function inclusive(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map<string, number>();
  for (const id of profile.samples) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = functionName(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      totals.set(name, (totals.get(name) ?? 0) + 1);
    }
  }
  for (const name of [...totals.keys()]) if (/^\((root|program|idle)\)/.test(name)) totals.delete(name);
  return totals;
}

function top(map: Map<string, number>, total: number, n: number): string[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, count]) => `${((count / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', default: 'discovery' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '16' },
    },
  });
  const scenario = SCENARIOS.find((s) => s.name === values.scenario);
  if (!scenario) throw new Error(`unknown scenario ${values.scenario}`);
  pinSelf();
  const dir = mkdtempSync(join(tmpdir(), 'schoolauth-profile-'));
  const target = await startSchoolauth(dir, { probe: true });
  const fixture = await Fixture.prepare(target);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  if (scenario.pool) await fixture.ensure(scenario.pool, Math.ceil((seconds + 1) * 2500));
  const plan = scenario.plan(fixture);
  if (typeof plan === 'string') throw new Error(plan);
  // A short unprofiled warm-up, then the profile covers the load only.
  await runLoad({ baseUrl: target.server.baseUrl, connections, seconds: 1, plan });
  await target.server.startProfile();
  const m = await runLoad({ baseUrl: target.server.baseUrl, connections, seconds, plan });
  const file = join(dir, `${scenario.name}.cpuprofile`);
  await target.server.stopProfile(file);
  await target.server.stop();
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const { byOwner, byFunction } = tally(profile);
  // Percentages of busy time: idle samples (waiting for the load generator, start-up pauses) are left out.
  const idleKey = [...byFunction.keys()].find((name) => name.startsWith('(idle) '));
  const idle = idleKey ? byFunction.get(idleKey)! : 0;
  if (idleKey) byFunction.delete(idleKey);
  byOwner.set('(native / gc / idle)', (byOwner.get('(native / gc / idle)') ?? 0) - idle);
  const total = profile.samples.length - idle;
  process.stdout.write(
    [
      `${scenario.name}: ${Math.round(m.rps)} req/s under the profiler, ${connections} connections, ${seconds} s; profile ${file}`,
      `idle ${((idle / profile.samples.length) * 100).toFixed(1)}% of samples (start-up, fixtures, waiting); shares below are of busy time`,
      '',
      'Self time by owner:',
      ...top(byOwner, total, 15),
      '',
      'Self time by function:',
      ...top(byFunction, total, 30),
      '',
      'Total (inclusive) time by function:',
      ...top(inclusive(profile), total, 60),
      '',
    ].join('\n'),
  );
}

await main();
