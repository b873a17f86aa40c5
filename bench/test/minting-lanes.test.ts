/**
 * The bench's code minting: each lane mints one code at a time on its own cookie jar, and a failed
 * authorization is tried again from an empty jar that then becomes the lane's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CookieJar, inParallel, withFreshJarRetries } from '../http-client.js';

describe('bench minting lanes', () => {
  it('never runs two tasks of one lane at once, and numbers the lanes below the concurrency', async () => {
    const busy = new Set<number>();
    const lanes = new Set<number>();
    const results = await inParallel(200, 16, async (index, lane) => {
      assert.ok(!busy.has(lane), `lane ${lane} was given task ${index} while busy`);
      busy.add(lane);
      lanes.add(lane);
      // Uneven durations, so a lane chosen by the task's index would overlap with itself.
      await sleep(index % 7 === 0 ? 5 : index % 3);
      busy.delete(lane);
      return index * 2;
    });
    assert.deepEqual(
      results,
      Array.from({ length: 200 }, (_, index) => index * 2),
    );
    assert.deepEqual(
      [...lanes].sort((a, b) => a - b),
      Array.from({ length: 16 }, (_, lane) => lane),
    );
  });
});

describe('bench minting retries', () => {
  it("tries the lane's jar first, then hands a new empty jar to onRetry, counting the retries", async () => {
    const lane = new CookieJar();
    const seen: CookieJar[] = [];
    const handed: CookieJar[] = [];
    const code = await withFreshJarRetries(
      lane,
      3,
      async (jar) => {
        seen.push(jar);
        // The lane's jar fails, as a session the server refused did.
        if (jar === lane) throw new Error('resume step answered 400');
        return 'code';
      },
      (fresh) => handed.push(fresh),
    );
    assert.equal(code, 'code');
    assert.equal(seen[0], lane);
    assert.equal(seen.length, 2);
    assert.notEqual(seen[1], lane);
    assert.deepEqual(handed, [seen[1]]);
  });

  it('gives a different jar to every retry and throws the last failure after the attempts', async () => {
    const lane = new CookieJar();
    const seen: CookieJar[] = [];
    let retries = 0;
    await assert.rejects(
      withFreshJarRetries(
        lane,
        3,
        async (jar) => {
          seen.push(jar);
          throw new Error(`attempt ${seen.length}`);
        },
        () => retries++,
      ),
      /attempt 3/,
    );
    assert.equal(new Set(seen).size, 3);
    assert.equal(retries, 2);
  });
});
