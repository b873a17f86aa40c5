import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { keptTickObject } from '../../src/ops/keep-tick-maps.js';

describe("keeping the maps of nextTick's queue entries alive", () => {
  it('holds a live nextTick queue entry once imported', () => {
    const kept = keptTickObject() as { callback?: unknown } | undefined;
    // Undefined would mean Node no longer shows tick objects to async hooks: the server would
    // start without the protection, silently, and lose a fifth of a cheap request's CPU.
    assert.ok(kept, 'no TickObject reached the async hook');
    assert.equal(typeof kept.callback, 'function');
  });

  it('is the first module the server entry point evaluates', () => {
    // The server itself, stopped right after its configuration check (a bad PORT exits 2), with
    // each module of src/ saying when its body runs: the first to run must be keep-tick-maps.
    const root = new URL('../..', import.meta.url).pathname;
    const probe = new URL('../helpers/evaluation-order.mjs', import.meta.url).pathname;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--import', probe, 'src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const evaluated = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('evaluating '))
      .map((line) => line.slice('evaluating '.length));
    assert.equal(run.status, 2, run.stderr);
    assert.ok(evaluated.includes('main.ts'), run.stderr);
    assert.equal(evaluated[0], 'ops/keep-tick-maps.ts', evaluated.join(', '));
  });
});
