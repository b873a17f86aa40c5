import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PasswordCheckQueue } from '../../src/crypto/password-check-queue.js';

/** A check that lasts until the test ends it. */
function controlled() {
  let finish!: (value: boolean) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<boolean>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  let started = false;
  const check = () => {
    started = true;
    return done;
  };
  return { check, finish, fail, started: () => started };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('password check queue', () => {
  it('runs `concurrency` checks, queues `queue` more, and refuses the rest at once without running them', async () => {
    const queue = new PasswordCheckQueue(2, 1);
    const checks = Array.from({ length: 4 }, controlled);
    const runs = checks.map((c) => queue.tryRun(c.check));
    await turn();
    assert.deepEqual(
      checks.map((c) => c.started()),
      [true, true, false, false],
    );
    assert.equal(runs[3], undefined, 'the fourth is refused');
    checks[0]!.finish(true);
    assert.equal(await runs[0], true);
    await turn();
    assert.equal(checks[2]!.started(), true, 'the waiting check takes the freed slot');
    checks[1]!.finish(false);
    checks[2]!.finish(true);
    assert.deepEqual(await Promise.all([runs[1], runs[2]]), [false, true]);
    assert.notEqual(
      queue.tryRun(async () => true),
      undefined,
      'room again once all are done',
    );
  });

  it('a waiting check cannot be overtaken by a newcomer, and a failed check frees its slot', async () => {
    const queue = new PasswordCheckQueue(1, 2);
    const first = controlled();
    const second = controlled();
    const third = controlled();
    const running = queue.tryRun(first.check)!;
    const waiting = queue.tryRun(second.check)!;
    first.fail(new Error('argon2 failed'));
    await assert.rejects(running, /argon2 failed/);
    const newcomer = queue.tryRun(third.check)!;
    await turn();
    assert.deepEqual([second.started(), third.started()], [true, false]);
    second.finish(true);
    await waiting;
    await turn();
    assert.equal(third.started(), true);
    third.finish(true);
    assert.equal(await newcomer, true);
  });
});
