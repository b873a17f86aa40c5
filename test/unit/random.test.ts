import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomBase64url } from '../../src/crypto/random.js';
import { timeOrderedId } from '../../src/crypto/tokens.js';

describe('random bytes', () => {
  it('gives the asked number of bytes, base64url without padding', () => {
    for (const bytes of [1, 6, 16, 32, 33]) {
      const value = randomBase64url(bytes);
      assert.match(value, /^[A-Za-z0-9_-]+$/);
      assert.equal(Buffer.from(value, 'base64url').length, bytes);
    }
  });

  it('never hands out the same bytes twice', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(randomBase64url(32));
    assert.equal(seen.size, 20_000);
  });

  it('draws bytes that look uniform (each bit set about half the time)', () => {
    const ones = new Array<number>(8).fill(0);
    const samples = 4096;
    for (const byte of Buffer.from(randomBase64url(samples), 'base64url')) {
      for (let bit = 0; bit < 8; bit++) ones[bit]! += (byte >> bit) & 1;
    }
    // Binomial(4096, 0.5): the standard deviation is 32; 6 of them is 192.
    for (const count of ones) assert.ok(Math.abs(count - samples / 2) < 192, `bit set ${count} times`);
  });
});

describe('time-ordered ids', () => {
  it('sort by the millisecond they were made in, and are distinct within one', async () => {
    const first = Array.from({ length: 100 }, () => timeOrderedId('grt_'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = timeOrderedId('grt_');
    for (const id of first) {
      assert.match(id, /^grt_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/);
      assert.ok(id.slice(0, 13) < later.slice(0, 13), `${id} does not sort before ${later}`);
    }
    assert.equal(new Set(first).size, first.length);
  });
});
