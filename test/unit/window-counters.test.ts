/** In-memory rate-limit windows (src/rate-limit/window-counters.ts): exact, aligned, bounded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WindowCounters } from '../../src/rate-limit/window-counters.js';

// A minute boundary: windows are aligned to multiples of their length since the epoch.
const T = 1_800_000_000 - (1_800_000_000 % 60);

const outcome = (counters: WindowCounters, key: string, limit: number, now: number) => {
  const r = counters.hit(key, limit, 60, now);
  return [r.allowed, r.count, r.retryAfter];
};

describe('in-memory rate-limit windows', () => {
  it('a window allows exactly `limit` hits, then refuses with the seconds until it closes', () => {
    const counters = new WindowCounters(1000);
    const results = [0, 1, 2, 3].map((i) => outcome(counters, 'k', 3, T + 10 + i));
    assert.deepEqual(results, [
      [true, 1, 50],
      [true, 2, 49],
      [true, 3, 48],
      [false, 4, 47],
    ]);
    assert.deepEqual(outcome(counters, 'other', 3, T + 14), [true, 1, 46], 'each key has its own window');
    assert.deepEqual(outcome(counters, 'k', 3, T + 60), [true, 1, 60], 'the next window starts over');
  });

  it('a refunded hit is taken back, also from the shared table when it was already sent', () => {
    const counters = new WindowCounters(1000);
    counters.hit('k', 2, 60, T + 1);
    counters.hit('k', 2, 60, T + 2);
    counters.refund('k', 60, T + 3);
    assert.deepEqual(counters.takeUnsent(T + 3), [{ key: 'k', count: 1, resetAt: T + 60 }]);
    counters.refund('k', 60, T + 4);
    assert.deepEqual(
      counters.takeUnsent(T + 4),
      [{ key: 'k', count: -1, resetAt: T + 60 }],
      'a negative increment',
    );
    assert.deepEqual(outcome(counters, 'k', 1, T + 5), [true, 1, 55]);
    counters.refund('k', 60, T + 61);
    assert.deepEqual(
      outcome(counters, 'k', 1, T + 6),
      [false, 2, 54],
      'a refund in a later window takes nothing back',
    );
  });

  it('windows are aligned to the clock, so every instance closes a key’s window at the same second', () => {
    const a = new WindowCounters(1000);
    const b = new WindowCounters(1000);
    assert.equal(a.hit('k', 5, 60, T + 59).retryAfter, 1);
    assert.equal(b.hit('k', 5, 60, T + 1).retryAfter, 59);
    assert.deepEqual(a.takeUnsent(T + 59), [{ key: 'k', count: 1, resetAt: T + 60 }]);
    assert.deepEqual(b.takeUnsent(T + 59), [{ key: 'k', count: 1, resetAt: T + 60 }]);
  });

  it('holds at most maxKeys keys: a flood of new keys evicts the oldest, one at a time', () => {
    const counters = new WindowCounters(100);
    for (let i = 0; i < 10_000; i++) counters.hit(`junk:${i}`, 1, 60, T + 1);
    assert.equal(counters.size, 100);
    assert.deepEqual(outcome(counters, 'junk:9999', 1, T + 1), [false, 2, 59], 'the newest keys are kept');
    assert.deepEqual(outcome(counters, 'junk:0', 1, T + 1), [true, 1, 59], 'the oldest was evicted');
  });

  it('closed windows are dropped as new keys arrive, so the Map does not keep the past', () => {
    const counters = new WindowCounters(1000);
    for (let i = 0; i < 500; i++) counters.hit(`old:${i}`, 5, 60, T + 1);
    // A minute later: every new key drops up to two closed windows.
    for (let i = 0; i < 250; i++) counters.hit(`new:${i}`, 5, 60, T + 61);
    assert.equal(counters.size, 250);
  });

  it('shared counts: hits are taken once, and the shared row’s answer adds the other instances’ hits', () => {
    const counters = new WindowCounters(1000);
    for (let i = 0; i < 3; i++) counters.hit('k', 10, 60, T + 1);
    const sent = counters.takeUnsent(T + 1);
    assert.deepEqual(sent, [{ key: 'k', count: 3, resetAt: T + 60 }]);
    assert.deepEqual(counters.takeUnsent(T + 1), [], 'nothing is sent twice');
    // The row holds these 3 hits plus 5 of other instances.
    counters.settle(sent, [{ key: 'k', count: 8, reset_at: T + 60 }]);
    assert.equal(counters.hit('k', 10, 60, T + 2).count, 9);
    counters.settle(counters.takeUnsent(T + 2), [{ key: 'k', count: 10, reset_at: T + 60 }]);
    assert.deepEqual(outcome(counters, 'k', 10, T + 3), [false, 11, 57]);
  });

  it('a failed flush keeps its hits for the next; hits of a closed window are never sent', () => {
    const counters = new WindowCounters(1000);
    counters.hit('k', 10, 60, T + 1);
    counters.restore(counters.takeUnsent(T + 1));
    counters.hit('k', 10, 60, T + 2);
    assert.deepEqual(counters.takeUnsent(T + 2), [{ key: 'k', count: 2, resetAt: T + 60 }]);
    counters.hit('k', 10, 60, T + 3);
    assert.deepEqual(counters.takeUnsent(T + 60), [], 'the window closed before the flush');
  });

  it('a row already in a later window (a clock ahead) teaches nothing about this one', () => {
    const counters = new WindowCounters(1000);
    counters.hit('k', 10, 60, T + 59);
    counters.settle(counters.takeUnsent(T + 59), [{ key: 'k', count: 50, reset_at: T + 120 }]);
    assert.equal(counters.hit('k', 10, 60, T + 59).count, 2);
  });
});
