import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';

let keys = 0;
const freshKey = () => `proof-${process.pid}-${++keys}`;

for (const dialect of DIALECTS) {
  describe(`store contract: dpopProofs and dpopNonces (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
    });
    after(() => t.close());

    it('records a proof once: the second record of the same key, on another instance too, is a replay', async () => {
      const other = (await t.second()).store;
      const key = freshKey();
      assert.equal(await t.store.dpopProofs.record(key, 1_000_100, 1_000_000), true);
      assert.equal(await t.store.dpopProofs.record(key, 1_000_100, 1_000_001), false);
      assert.equal(await other.dpopProofs.record(key, 1_000_100, 1_000_002), false);
    });

    it('an expired record refuses nothing: the same key is recorded again after it', async () => {
      const key = freshKey();
      assert.equal(await t.store.dpopProofs.record(key, 2_000_010, 2_000_000), true);
      assert.equal(await t.store.dpopProofs.record(key, 2_000_200, 2_000_010), true);
      assert.equal(await t.store.dpopProofs.record(key, 2_000_200, 2_000_011), false);
    });

    it('of 20 concurrent records of one proof across two instances, exactly one wins', async () => {
      const other = (await t.second()).store;
      const key = freshKey();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? t.store : other).dpopProofs.record(key, 3_000_100, 3_000_000),
        ),
      );
      assert.equal(results.filter(Boolean).length, 1);
    });

    it('prune deletes expired proof records and nonces, in batches, and keeps live ones', async () => {
      const expired = [freshKey(), freshKey(), freshKey()];
      for (const key of expired) await t.store.dpopProofs.record(key, 4_000_000, 3_999_000);
      const live = freshKey();
      await t.store.dpopProofs.record(live, 9_000_000, 3_999_000);
      let deleted = 0;
      for (let round = 0; round < 10; round++) {
        const n = await t.store.dpopProofs.prune(4_000_001, 2);
        assert.ok(n <= 2);
        deleted += n;
        if (n === 0) break;
      }
      assert.ok(deleted >= 3);
      assert.equal(await t.store.dpopProofs.record(live, 9_000_000, 4_000_001), false);
      await t.store.dpopNonces.add('nonce-old', 4_000_000);
      assert.ok((await t.store.dpopNonces.prune(4_000_001, 100)) >= 1);
      assert.equal(await t.store.dpopNonces.liveUntil('nonce-old', 3_000_000), undefined);
    });

    it('a nonce published by one instance is live on another until it expires', async () => {
      const other = (await t.second()).store;
      await t.store.dpopNonces.add('nonce-hash-a', 5_000_600);
      assert.equal(await other.dpopNonces.liveUntil('nonce-hash-a', 5_000_000), 5_000_600);
      assert.equal(await other.dpopNonces.liveUntil('nonce-hash-a', 5_000_600), undefined);
      assert.equal(await other.dpopNonces.liveUntil('nonce-hash-b', 5_000_000), undefined);
      // Publishing it again changes nothing.
      await other.dpopNonces.add('nonce-hash-a', 5_000_900);
      assert.equal(await t.store.dpopNonces.liveUntil('nonce-hash-a', 5_000_000), 5_000_600);
    });
  });
}
