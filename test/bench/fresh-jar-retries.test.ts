/** The bench's code minting: a failed authorization is tried again from an empty cookie jar. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CookieJar, withFreshJarRetries } from '../../bench/http-client.js';

describe('bench minting retries', () => {
  it('tries the shared jar first, then a new empty jar on each retry, counting the retries', async () => {
    const shared = new CookieJar();
    const seen: CookieJar[] = [];
    let retries = 0;
    const code = await withFreshJarRetries(
      shared,
      3,
      async (jar) => {
        seen.push(jar);
        // The shared jar fails every time, as a session another authorization changed did.
        if (jar === shared) throw new Error('resume step answered 400');
        return 'code';
      },
      () => retries++,
    );
    assert.equal(code, 'code');
    assert.equal(seen[0], shared);
    assert.equal(seen.length, 2);
    assert.notEqual(seen[1], shared);
    assert.equal(retries, 1);
  });

  it('gives a different jar to every retry and throws the last failure after the attempts', async () => {
    const shared = new CookieJar();
    const seen: CookieJar[] = [];
    let retries = 0;
    await assert.rejects(
      withFreshJarRetries(
        shared,
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
