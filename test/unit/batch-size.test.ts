import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fixedBatches,
  MIN_BATCH_ROWS,
  STATEMENT_TARGET_MS,
  TimeBoundBatches,
} from '../../src/ops/batch-size.js';

/** The row counts `sizes` chooses when the statements take `times` ms in turn. */
function sizesFor(sizes: { rows: number; took(ms: number): void }, times: number[]): number[] {
  const seen = [sizes.rows];
  for (const ms of times) {
    sizes.took(ms);
    seen.push(sizes.rows);
  }
  return seen;
}

describe('time-bound prune batches', () => {
  it('stays well under the 50 ms event-loop target', () => {
    assert.ok(STATEMENT_TARGET_MS <= 50 / 4, `${STATEMENT_TARGET_MS} ms`);
  });

  it('starts at the smallest batch and doubles while statements take under half the target, up to the largest', () => {
    const sizes = new TimeBoundBatches({ min: 50, max: 2000, targetMs: 10 });
    assert.deepEqual(sizesFor(sizes, [1, 1, 1, 1, 1, 1, 1]), [50, 100, 200, 400, 800, 1600, 2000, 2000]);
  });

  it('a statement over the target makes the next smaller: at least halved, in proportion to the overshoot', () => {
    const sizes = new TimeBoundBatches({ min: 50, max: 2000, targetMs: 10 });
    sizesFor(sizes, [1, 1, 1, 1, 1, 1]);
    assert.equal(sizes.rows, 2000);
    sizes.took(12); // a little over: halved
    assert.equal(sizes.rows, 1000);
    sizes.took(100); // ten times the target: a tenth
    assert.equal(sizes.rows, 100);
    sizes.took(1000); // never below the smallest batch, however slow
    assert.equal(sizes.rows, 50);
    sizes.took(1000);
    assert.equal(sizes.rows, 50);
  });

  it('holds its size while statements take between half the target and the target', () => {
    const sizes = new TimeBoundBatches({ min: 50, max: 2000, targetMs: 10 });
    sizesFor(sizes, [1, 1]);
    assert.deepEqual(sizesFor(sizes, [5, 7.5, 10]), [200, 200, 200, 200]);
  });

  it('converges on a steady cost per row and keeps each statement within the target', () => {
    // A statement costs 0.03 ms a row: it grows from 50 rows (1.5 ms) to 200 (6 ms) and holds.
    const sizes = new TimeBoundBatches({ min: 50, max: 2000, targetMs: 10 });
    const took: number[] = [];
    for (let i = 0; i < 20; i++) {
      const ms = sizes.rows * 0.03;
      took.push(ms);
      sizes.took(ms);
    }
    assert.ok(
      took.slice(3).every((ms) => ms <= 10 && ms >= 5),
      `statement times: ${took.join(', ')}`,
    );
  });

  it('defaults: the documented target and smallest batch; a smallest above the largest is the largest', () => {
    const sizes = new TimeBoundBatches({ max: 2000 });
    assert.equal(sizes.rows, MIN_BATCH_ROWS);
    sizes.took(STATEMENT_TARGET_MS / 2 - 0.1);
    assert.equal(sizes.rows, MIN_BATCH_ROWS * 2);
    sizes.took(STATEMENT_TARGET_MS + 0.1);
    assert.equal(sizes.rows, MIN_BATCH_ROWS);
    assert.equal(new TimeBoundBatches({ max: 10 }).rows, 10);
  });

  it('fixed batches (schoolauth prune) never change', () => {
    const sizes = fixedBatches(2000);
    assert.deepEqual(sizesFor(sizes, [1, 500, 1]), [2000, 2000, 2000, 2000]);
  });
});
