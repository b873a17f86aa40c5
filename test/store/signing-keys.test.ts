import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditEventRow, SigningKeyRow } from '../../src/storage/schema.js';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';

const NOW = 1_800_000_000;

const key = (kid: string, alg: string, activatesAt: number): SigningKeyRow => ({
  kid,
  alg,
  public_jwk: '{}',
  private_jwk: `clear-${kid}`,
  created_at: NOW,
  activates_at: activatesAt,
  retired_at: null,
  retire_until: null,
});

const sealed = (kid: string): AuditEventRow => ({
  at: NOW,
  kind: 'key.sealed',
  account_id: null,
  client_id: null,
  ip: null,
  detail: JSON.stringify({ kid }),
});

for (const dialect of DIALECTS) {
  describe(`store contract: signing keys (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
    });
    after(() => t.close());

    it('rotate retires the current key and inserts the next; a second rotation finds it pending and changes nothing', async () => {
      await t.store.signingKeys.insert(key('k1', 'ES512', NOW - 10));
      const first = await t.store.signingKeys.rotate({
        alg: 'ES512',
        key: key('k2', 'ES512', NOW + 100),
        now: NOW,
        previousUntil: NOW + 500,
      });
      assert.deepEqual(first, {});
      const second = await t.store.signingKeys.rotate({
        alg: 'ES512',
        key: key('k3', 'ES512', NOW + 100),
        now: NOW,
        previousUntil: NOW + 500,
      });
      assert.equal(second.pending?.kid, 'k2');
      const kids = (await t.store.signingKeys.listAll()).filter((k) => k.alg === 'ES512').map((k) => k.kid);
      assert.deepEqual(kids.sort(), ['k1', 'k2']);
      const old = (await t.store.signingKeys.listAll()).find((k) => k.kid === 'k1');
      assert.deepEqual([old?.retired_at, old?.retire_until], [NOW + 100, NOW + 500]);
      assert.equal((await t.store.signingKeys.findPending('ES512', NOW))?.kid, 'k2');
      assert.deepEqual(
        (await t.store.signingKeys.listPublished(NOW + 501))
          .filter((k) => k.alg === 'ES512')
          .map((k) => k.kid),
        ['k2'],
      );
    });

    it('sealIfClear seals a key once, with its audit row, though two instances try at once', async () => {
      await t.store.signingKeys.insert(key('k9', 'ES384', NOW));
      const other = (await t.second()).store;
      const outcomes = await Promise.all([
        t.store.signingKeys.sealIfClear('k9', 'clear-k9', 'sealed-a', sealed('k9')),
        other.signingKeys.sealIfClear('k9', 'clear-k9', 'sealed-b', sealed('k9')),
      ]);
      assert.deepEqual(outcomes.filter(Boolean).length, 1);
      const rows = await t.store.audit.list({ kind: 'key.sealed', limit: 10 });
      assert.equal(rows.filter((row) => row.detail.includes('k9')).length, 1);
    });
  });
}
