/** The store's sessions, clientAdmin, connectedApps and upkeep sections on both databases. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';
import { addAccount, addClient, addGrant, addToken, clientRow } from '../ops/fixtures.js';

for (const dialect of DIALECTS) {
  describe(`store contract: sessions, client admin, connected apps, upkeep (${dialect})`, () => {
    let t: TestStore;
    let accountId: string;
    before(async () => {
      t = await openTestStore(dialect);
      accountId = await addAccount(t.storage.db, 1_000);
    });
    after(() => t.close());

    const liveGrants = async (clientId: string) =>
      (
        await t.storage.db
          .selectFrom('grants')
          .select('id')
          .where('client_id', '=', clientId)
          .where('revoked_at', 'is', null)
          .execute()
      ).length;
    const liveTokens = async (clientId: string) =>
      (
        await t.storage.db
          .selectFrom('access_tokens')
          .select('token_hash')
          .where('client_id', '=', clientId)
          .where('revoked_at', 'is', null)
          .execute()
      ).length;

    it('starts, finds, touches and ends a session by its hash', async () => {
      const session = {
        id_hash: 'h1',
        account_id: accountId,
        csrf_secret: 'c',
        auth_time: 1,
        created_at: 1,
        last_seen_at: 1,
        expires_at: 100,
      };
      await t.store.sessions.start(session);
      assert.deepEqual({ ...(await t.store.sessions.find('h1')) }, session);
      await t.store.sessions.touch('h1', 50, 150);
      const touched = await t.store.sessions.find('h1');
      assert.deepEqual([touched?.last_seen_at, touched?.expires_at], [50, 150]);
      await t.store.sessions.end('h1');
      assert.equal(await t.store.sessions.find('h1'), undefined);
    });

    it('makes a server secret once: every call, on every instance, answers the same 32 bytes', async () => {
      const first = await t.store.serverSecrets.get('device_cookie_hmac', 1);
      const other = await (await t.second()).store.serverSecrets.get('device_cookie_hmac', 2);
      assert.equal(first.length, 32);
      assert.deepEqual(other, first);
    });

    it('disables a client and revokes its live grants with their tokens in one step; enabling revives none', async () => {
      const clientId = await addClient(t.storage.db, 'integration', 1_000);
      const grant = { id: await addGrant(t.storage.db, accountId, clientId, 1_000), accountId, clientId };
      await addToken(t.storage.db, 'access_tokens', grant, 1_000, 10_000_000_000);
      assert.equal(await t.store.clientAdmin.disable(clientId, 2_000), 1);
      assert.equal((await t.store.clients.find(clientId))?.disabled, 1);
      assert.deepEqual([await liveGrants(clientId), await liveTokens(clientId)], [0, 0]);
      await t.store.clientAdmin.enable(clientId);
      assert.equal((await t.store.clients.find(clientId))?.disabled, 0);
      assert.equal(await liveGrants(clientId), 0);
    });

    it('inserts and lists the operator’s clients by kind; revokes one client’s grants and answers how many', async () => {
      await t.store.clientAdmin.insert(clientRow('int_listed', 'integration', 3_000, null));
      const integrations = await t.store.clientAdmin.list('integration');
      assert.ok(integrations.some((c) => c.id === 'int_listed'));
      assert.ok(integrations.every((c) => c.kind === 'integration'));
      await addGrant(t.storage.db, accountId, 'int_listed', 3_000);
      await addGrant(t.storage.db, accountId, 'int_listed', 3_000);
      assert.equal(await t.store.clientAdmin.revokeGrants('int_listed', 4_000), 2);
      assert.equal(await t.store.clientAdmin.revokeGrants('int_listed', 4_000), 0);
    });

    it('sets, replaces and clears a metadata-document rule', async () => {
      await t.store.clientAdmin.setMetadataRule(
        { kind: 'domain', target: 'example.org', decision: 'block' },
        1,
      );
      await t.store.clientAdmin.setMetadataRule(
        { kind: 'domain', target: 'example.org', decision: 'trust' },
        2,
      );
      const rules = await t.store.clients.metadataRules();
      assert.deepEqual(
        rules.map((r) => [r.target, r.decision]),
        [['example.org', 'trust']],
      );
      assert.equal(await t.store.clientAdmin.clearMetadataRule('domain', 'example.org'), true);
      assert.equal(await t.store.clientAdmin.clearMetadataRule('domain', 'example.org'), false);
    });

    it('lists a person’s apps and forgets one: its grants and tokens revoked, its consent gone', async () => {
      const clientId = await addClient(t.storage.db, 'dynamic', 5_000);
      const grant = { id: await addGrant(t.storage.db, accountId, clientId, 5_000), accountId, clientId };
      await addToken(t.storage.db, 'access_tokens', grant, 5_000, 10_000_000_000);
      await t.store.consents.save(accountId, clientId, 'openid', 5_000);
      assert.ok((await t.store.connectedApps.of(accountId)).some((row) => row.client_id === clientId));
      assert.equal(await t.store.connectedApps.forget(accountId, clientId, 6_000), 1);
      assert.deepEqual([await liveGrants(clientId), await liveTokens(clientId)], [0, 0]);
      assert.equal(await t.store.consents.find(accountId, clientId), undefined);
    });

    it('upkeep: pages keys in order, deletes only what is dead among them, and answers a ping', async () => {
      const clientId = await addClient(t.storage.db, 'dynamic', 1, 1);
      const page = await t.store.upkeep.page('clients', undefined, 1_000);
      assert.ok(page.includes(clientId));
      assert.deepEqual([...page].sort(), page);
      assert.equal(await t.store.upkeep.deleteIdleClients([clientId], 0), 0, 'used after the bound: kept');
      assert.equal(await t.store.upkeep.deleteIdleClients([clientId], 2), 1);
      await t.store.upkeep.ping();
    });
  });
}
