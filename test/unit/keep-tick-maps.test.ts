import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
    const source = readFileSync(new URL('../../src/main.ts', import.meta.url), 'utf8');
    const firstImport = /^import\s[^;]*;/m.exec(source)?.[0];
    assert.equal(firstImport, "import './ops/keep-tick-maps.js';");
  });
});
