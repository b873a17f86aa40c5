import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forwardClock } from '../../src/clock.js';

describe('the application clock (forwardClock)', () => {
  it('follows the system clock forward, second by second and by jumps', () => {
    let wall = 1000;
    const now = forwardClock(() => wall);
    assert.equal(now(), 1000);
    wall = 1001;
    assert.equal(now(), 1001);
    wall = 5000;
    assert.equal(now(), 5000);
  });

  it('never answers less than before when the system clock steps back, and says so once', () => {
    let wall = 1000;
    const steps: number[] = [];
    const now = forwardClock(
      () => wall,
      (seconds) => steps.push(seconds),
    );
    assert.equal(now(), 1000);
    wall = 970;
    assert.equal(now(), 1000);
    wall = 975;
    assert.equal(now(), 1000, 'still behind: carried on from the latest answer');
    assert.deepEqual(steps, [30]);
    wall = 1002;
    assert.equal(now(), 1002, 'caught up');
    wall = 990;
    assert.equal(now(), 1002);
    assert.deepEqual(steps, [30, 12], 'a new step back is reported again');
  });
});
