import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatementTimes } from '../../src/ops/statement-times.js';

describe('prune statement times', () => {
  it('counts statements per time bucket (≤ 3, ≤ 10, ≤ 30, above), a bound in its own bucket', () => {
    const times = new StatementTimes();
    for (const ms of [0.4, 3, 3.1, 10, 29, 30.01, 45.8]) times.record('accessTokens', 40, ms);
    assert.deepEqual(times.summary.accessTokens, {
      statements: 7,
      rows: 280,
      slowestMs: 45.8,
      slowestRows: 40,
      histogram: [2, 2, 1, 2],
    });
  });

  it('keeps each kind apart, and only the kinds that ran', () => {
    const times = new StatementTimes();
    times.record('grants', 100, 39.3);
    times.record('sessions', 1, 0.9);
    assert.deepEqual(Object.keys(times.summary).sort(), ['grants', 'sessions']);
    assert.deepEqual(times.summary.grants?.histogram, [0, 0, 0, 1]);
    assert.deepEqual(times.summary.sessions?.histogram, [1, 0, 0, 0]);
  });
});
