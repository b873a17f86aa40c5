import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { hashSecret, mintSecret, randomId } from '../../src/crypto/tokens.js';
import type { DeviceAuthorizations } from '../../src/storage/contract/device-authorizations.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';

const NOW = 1_900_000_000;

async function insertClient(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .insertInto('clients')
    .values({
      id,
      kind: 'integration',
      name: id,
      application_type: 'native',
      redirect_uris: '[]',
      token_endpoint_auth_method: 'none',
      secret_hash: null,
      grant_types: '["urn:ietf:params:oauth:grant-type:device_code"]',
      response_types: '[]',
      metadata: '{}',
      id_token_signed_response_alg: 'RS256',
      disabled: 0,
      created_at: NOW,
      last_used_at: null,
    })
    .execute();
}

async function insertAccount(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .insertInto('accounts')
    .values({
      id,
      email: `${id}@example.test`,
      password_hash: 'x',
      name: id,
      locale: 'en',
      disabled: 0,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
}

interface Made {
  readonly deviceCodeHash: string;
  readonly userCodeHash: string;
}

async function request(
  store: DeviceAuthorizations,
  clientId: string,
  overrides: { expiresAt?: number; userCodeHash?: string } = {},
): Promise<Made> {
  const made = {
    deviceCodeHash: mintSecret('deviceCode').hash,
    userCodeHash: overrides.userCodeHash ?? hashSecret(randomId()),
  };
  const created = await store.create({
    ...made,
    clientId,
    scopes: 'openid courses:read',
    resource: 'https://issuer.test',
    interval: 5,
    createdAt: NOW,
    expiresAt: overrides.expiresAt ?? NOW + 600,
  });
  assert.equal(created, true);
  return made;
}

const decision = { accountId: 'acc_1', scopes: 'openid', authTime: NOW - 10 };

for (const dialect of DIALECTS) {
  describe(`store contract: device authorizations (${dialect})`, () => {
    let t: TestStore;
    let store: DeviceAuthorizations;
    before(async () => {
      t = await openTestStore(dialect);
      store = t.store.deviceAuthorizations;
      await insertClient(t.storage.db, 'cli_a');
      await insertClient(t.storage.db, 'cli_b');
      await insertAccount(t.storage.db, 'acc_1');
    });
    after(() => t.close());
    beforeEach(async () => {
      await t.storage.db.deleteFrom('device_authorizations').execute();
    });

    it('a pending request is found by its user code until it is decided or expires', async () => {
      const made = await request(store, 'cli_a');
      const found = await store.findPendingByUserCode(made.userCodeHash, NOW + 1);
      assert.equal(found?.client_id, 'cli_a');
      assert.equal(found?.scopes, 'openid courses:read');
      assert.equal(await store.findPendingByUserCode(made.userCodeHash, NOW + 600), undefined);
      assert.ok(await store.approve(made.userCodeHash, decision, NOW + 2));
      assert.equal(await store.findPendingByUserCode(made.userCodeHash, NOW + 3), undefined);
    });

    it('a user code held by a live request is refused to a second one; an expired one gives it up', async () => {
      const made = await request(store, 'cli_a', { expiresAt: NOW + 100 });
      const second = {
        deviceCodeHash: mintSecret('deviceCode').hash,
        userCodeHash: made.userCodeHash,
        clientId: 'cli_b',
        scopes: 'openid',
        resource: 'https://issuer.test',
        interval: 5,
      };
      assert.equal(await store.create({ ...second, createdAt: NOW + 50, expiresAt: NOW + 650 }), false);
      assert.equal(await store.create({ ...second, createdAt: NOW + 100, expiresAt: NOW + 700 }), true);
      assert.equal((await store.findPendingByUserCode(made.userCodeHash, NOW + 101))?.client_id, 'cli_b');
    });

    it('polls answer pending, then slow_down with the interval 5 s longer from then on', async () => {
      const made = await request(store, 'cli_a');
      assert.deepEqual(await store.poll(made.deviceCodeHash, 'cli_a', NOW + 5), {
        outcome: 'pending',
        interval: 5,
      });
      assert.deepEqual(await store.poll(made.deviceCodeHash, 'cli_a', NOW + 8), {
        outcome: 'slow_down',
        interval: 10,
      });
      // 5 s after the last poll is now too soon: the interval is 10.
      assert.deepEqual(await store.poll(made.deviceCodeHash, 'cli_a', NOW + 13), {
        outcome: 'slow_down',
        interval: 15,
      });
      assert.deepEqual(await store.poll(made.deviceCodeHash, 'cli_a', NOW + 28), {
        outcome: 'pending',
        interval: 15,
      });
    });

    it("another client's device code and an unknown one are unknown, and change nothing", async () => {
      const made = await request(store, 'cli_a');
      assert.ok(await store.approve(made.userCodeHash, decision, NOW + 1));
      assert.deepEqual(await store.poll(made.deviceCodeHash, 'cli_b', NOW + 2), { outcome: 'unknown' });
      assert.deepEqual(await store.poll(mintSecret('deviceCode').hash, 'cli_a', NOW + 2), {
        outcome: 'unknown',
      });
      assert.equal((await store.poll(made.deviceCodeHash, 'cli_a', NOW + 3)).outcome, 'approved');
    });

    it('an approved request is spent by the first poll, which gets the decision; later polls get spent', async () => {
      const made = await request(store, 'cli_a');
      await store.poll(made.deviceCodeHash, 'cli_a', NOW + 1);
      assert.ok(await store.approve(made.userCodeHash, decision, NOW + 2));
      // Too soon after the last poll does not matter once approved (slow_down is only for pending).
      const first = await store.poll(made.deviceCodeHash, 'cli_a', NOW + 3);
      assert.equal(first.outcome, 'approved');
      assert.ok(first.outcome === 'approved');
      assert.equal(first.authorization.account_id, 'acc_1');
      assert.equal(first.authorization.granted_scopes, 'openid');
      assert.equal(first.authorization.auth_time, NOW - 10);
      assert.deepEqual(await store.poll(made.deviceCodeHash, 'cli_a', NOW + 20), { outcome: 'spent' });
    });

    it('a denied request answers denied; a decided request cannot be decided again', async () => {
      const made = await request(store, 'cli_a');
      assert.equal((await store.deny(made.userCodeHash, 'acc_1', NOW + 1))?.denied, 1);
      assert.equal(await store.approve(made.userCodeHash, decision, NOW + 2), undefined);
      assert.equal(await store.deny(made.userCodeHash, 'acc_1', NOW + 2), undefined);
      assert.deepEqual(await store.poll(made.deviceCodeHash, 'cli_a', NOW + 3), { outcome: 'denied' });
    });

    it('an expired request answers expired, approved or not, and can no longer be decided', async () => {
      const pending = await request(store, 'cli_a', { expiresAt: NOW + 10 });
      const approved = await request(store, 'cli_a', { expiresAt: NOW + 10 });
      assert.ok(await store.approve(approved.userCodeHash, decision, NOW + 5));
      assert.equal(await store.approve(pending.userCodeHash, decision, NOW + 10), undefined);
      assert.deepEqual(await store.poll(pending.deviceCodeHash, 'cli_a', NOW + 10), { outcome: 'expired' });
      assert.deepEqual(await store.poll(approved.deviceCodeHash, 'cli_a', NOW + 10), { outcome: 'expired' });
    });

    it('pruning deletes requests expired by the given time, and only those', async () => {
      const old = await request(store, 'cli_a', { expiresAt: NOW + 10 });
      const live = await request(store, 'cli_a', { expiresAt: NOW + 600 });
      assert.equal(await store.pruneExpired(NOW + 10, 100), 1);
      assert.deepEqual(await store.poll(old.deviceCodeHash, 'cli_a', NOW + 11), { outcome: 'unknown' });
      assert.equal((await store.poll(live.deviceCodeHash, 'cli_a', NOW + 11)).outcome, 'pending');
    });

    it('20 concurrent polls of an approved request across two instances: exactly one gets it', async () => {
      const other = (await t.second()).store.deviceAuthorizations;
      const made = await request(store, 'cli_a');
      assert.ok(await other.approve(made.userCodeHash, decision, NOW + 1));
      const polls = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? other : store).poll(made.deviceCodeHash, 'cli_a', NOW + 2),
        ),
      );
      const outcomes = polls.map((p) => p.outcome).sort();
      assert.deepEqual(outcomes, ['approved', ...Array(19).fill('spent')]);
    });
  });
}
