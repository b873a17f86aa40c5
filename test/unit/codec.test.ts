import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoTime } from '../../src/api/codec.js';

describe('API codec: timestamps', () => {
  it('writes epoch seconds as RFC 3339 in UTC, the same on every call', () => {
    assert.equal(isoTime(0), '1970-01-01T00:00:00.000Z');
    assert.equal(isoTime(1_763_900_000), '2025-11-23T12:13:20.000Z');
    assert.equal(isoTime(1_763_900_000), '2025-11-23T12:13:20.000Z');
  });

  it('stays right past the number of conversions it keeps', () => {
    for (let i = 0; i < 3000; i++) {
      const epoch = 1_700_000_000 + i * 3607;
      assert.equal(isoTime(epoch), new Date(epoch * 1000).toISOString());
    }
    assert.equal(isoTime(1_700_000_000), '2023-11-14T22:13:20.000Z');
  });

  it('refuses a value that is no time, as before', () => {
    assert.throws(() => isoTime(Number.NaN), RangeError);
  });
});
