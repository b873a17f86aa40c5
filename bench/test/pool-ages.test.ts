/** The bench drops a code pool's leftovers before they expire (bench/pool-ages.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_AGE_MS, PoolAges } from '../pool-ages.js';

describe('ages of the bench pools', () => {
  it('keeps a code pool’s leftovers until the oldest is older than the limit, then drops them once', () => {
    const ages = new PoolAges(new Set(['codes']));
    ages.minting('codes', 1_000);
    assert.equal(ages.stale('codes', 500, 1_000 + MAX_AGE_MS), false);
    assert.equal(ages.stale('codes', 500, 1_001 + MAX_AGE_MS), true);
    // Dropped: the next top-up starts a new age.
    ages.minting('codes', 2_000 + MAX_AGE_MS);
    assert.equal(ages.stale('codes', 500, 2_001 + MAX_AGE_MS), false);
  });

  it('dates a pool from its oldest top-up, not the latest one', () => {
    const ages = new PoolAges(new Set(['codes']));
    ages.minting('codes', 0);
    ages.minting('codes', MAX_AGE_MS);
    assert.equal(ages.stale('codes', 10, MAX_AGE_MS + 1), true);
  });

  it('starts afresh once a pool was used up', () => {
    const ages = new PoolAges(new Set(['codes']));
    ages.minting('codes', 0);
    assert.equal(ages.stale('codes', 0, MAX_AGE_MS * 3), false);
    ages.minting('codes', MAX_AGE_MS * 3);
    assert.equal(ages.stale('codes', 10, MAX_AGE_MS * 3 + 1), false);
  });

  it('never drops a pool whose values do not expire within a run (access and refresh tokens)', () => {
    const ages = new PoolAges(new Set(['codes']));
    ages.minting('access', 0);
    assert.equal(ages.stale('access', 10, MAX_AGE_MS * 10), false);
  });
});
