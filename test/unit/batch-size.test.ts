import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fixedBatches,
  MIN_BATCH_ROWS,
  POSTGRES_STATEMENT_TARGET_MS,
  STATEMENT_TARGET_MS,
  statementTargetMs,
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
  it('keeps a statement within a millisecond: a request waiting for one stays within 2× a p99 of 1.4 ms', () => {
    assert.ok(STATEMENT_TARGET_MS <= 1, `${STATEMENT_TARGET_MS} ms`);
  });

  it('on PostgreSQL lets batches grow past the event loop’s own queue (8 ms a statement under load), where SQLite’s target keeps them at the floor', () => {
    assert.equal(statementTargetMs('sqlite'), STATEMENT_TARGET_MS);
    assert.equal(statementTargetMs('postgres'), POSTGRES_STATEMENT_TARGET_MS);
    const underLoad = Array.from({ length: 12 }, () => 8);
    const postgres = sizesFor(
      new TimeBoundBatches({ max: 2000, targetMs: statementTargetMs('postgres') }),
      underLoad,
    );
    const sqlite = sizesFor(
      new TimeBoundBatches({ max: 2000, targetMs: statementTargetMs('sqlite') }),
      underLoad,
    );
    assert.ok(postgres.at(-1)! >= 100, `PostgreSQL: ${postgres.join(', ')}`);
    assert.ok(
      sqlite.every((rows) => rows === MIN_BATCH_ROWS),
      `SQLite: ${sqlite.join(', ')}`,
    );
  });

  it('starts at the smallest batch and grows by half after every two statements under half the target, up to the largest', () => {
    const sizes = new TimeBoundBatches({ min: 10, max: 40, targetMs: 3 });
    assert.deepEqual(
      sizesFor(sizes, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
      [10, 10, 15, 15, 22, 22, 33, 33, 40, 40, 40],
    );
  });

  it('grows only after two fast statements in a row: one at half the target or over starts the count again', () => {
    const sizes = new TimeBoundBatches({ min: 10, max: 2000, targetMs: 3 });
    assert.deepEqual(sizesFor(sizes, [1, 2, 1, 2, 1, 1]), [10, 10, 10, 10, 10, 10, 15]);
  });

  it('a statement over the target makes the next smaller: at least halved, in proportion to the overshoot', () => {
    const sizes = new TimeBoundBatches({ min: 10, max: 2000, targetMs: 3 });
    while (sizes.rows < 2000) sizes.took(1);
    sizes.took(3.5); // a little over: halved
    assert.equal(sizes.rows, 1000);
    sizes.took(30); // ten times the target: a tenth
    assert.equal(sizes.rows, 100);
    sizes.took(300); // never below the smallest batch, however slow
    assert.equal(sizes.rows, 10);
    sizes.took(300);
    assert.equal(sizes.rows, 10);
  });

  it('after a slow statement, a fast one alone does not grow the batch back', () => {
    const sizes = new TimeBoundBatches({ min: 10, max: 2000, targetMs: 3 });
    sizes.took(1); // one fast statement counted …
    sizes.took(30); // … then a slow one: the count starts again
    assert.deepEqual(sizesFor(sizes, [1, 1]), [10, 10, 15]);
  });

  it('holds its size while statements take between half the target and the target', () => {
    const sizes = new TimeBoundBatches({ min: 10, max: 2000, targetMs: 3 });
    sizesFor(sizes, [1, 1]);
    assert.deepEqual(sizesFor(sizes, [1.5, 2.2, 3]), [15, 15, 15, 15]);
  });

  it('converges on a steady cost per row, each statement within three quarters of the target', () => {
    // A statement costs 0.03 ms a row: it grows from 10 rows (0.3 ms) until one takes half the
    // target (50 rows, 1.5 ms) and holds.
    const sizes = new TimeBoundBatches({ min: 10, max: 2000, targetMs: 3 });
    const took: number[] = [];
    for (let i = 0; i < 40; i++) {
      const ms = sizes.rows * 0.03;
      took.push(ms);
      sizes.took(ms);
    }
    assert.ok(
      took.every((ms) => ms <= 3 * 0.75),
      `statement times: ${took.join(', ')}`,
    );
    assert.ok(
      took.slice(20).every((ms) => ms >= 1.5),
      `statement times: ${took.join(', ')}`,
    );
  });

  it('defaults: the documented target and smallest batch; a smallest above the largest is the largest', () => {
    const sizes = new TimeBoundBatches({ max: 2000 });
    assert.equal(sizes.rows, MIN_BATCH_ROWS);
    assert.ok(MIN_BATCH_ROWS <= 10, `${MIN_BATCH_ROWS} rows`);
    sizes.took(STATEMENT_TARGET_MS / 2 - 0.1);
    sizes.took(STATEMENT_TARGET_MS / 2 - 0.1);
    assert.equal(sizes.rows, Math.floor(MIN_BATCH_ROWS * 1.5));
    sizes.took(STATEMENT_TARGET_MS + 0.1);
    assert.equal(sizes.rows, MIN_BATCH_ROWS);
    assert.equal(new TimeBoundBatches({ max: 5 }).rows, 5);
  });

  it('always asks for at least one row, so every statement makes progress and the prune ends', () => {
    const sizes = new TimeBoundBatches({ min: 0, max: 2000, targetMs: 3 });
    assert.equal(sizes.rows, 1);
    sizes.took(1000);
    assert.equal(sizes.rows, 1);
    assert.deepEqual(sizesFor(sizes, [0.1, 0.1, 0.1, 0.1]), [1, 1, 2, 2, 3]);
  });

  it('fixed batches (schoolauth prune) never change', () => {
    const sizes = fixedBatches(2000);
    assert.deepEqual(sizesFor(sizes, [1, 500, 1]), [2000, 2000, 2000, 2000]);
  });
});
