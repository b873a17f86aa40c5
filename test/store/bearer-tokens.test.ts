import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';
import { addAccount, addClient, addGrant, addToken } from '../ops/fixtures.js';

const NOW = 1_800_000_000;

for (const dialect of DIALECTS) {
  describe(`store contract: bearer tokens (${dialect})`, () => {
    let t: TestStore;
    let accountId: string;
    let clientId: string;
    let token: string;
    before(async () => {
      t = await openTestStore(dialect);
      const db = t.storage.db;
      accountId = await addAccount(db, NOW);
      clientId = await addClient(db, 'dynamic', NOW);
      const grant = { id: await addGrant(db, accountId, clientId, NOW), accountId, clientId };
      token = await addToken(db, 'access_tokens', grant, NOW, NOW + 3600);
    });
    after(() => t.close());

    it('find answers the token with its account, the same whether read now or later', async () => {
      const found = await t.store.bearerTokens.find(token);
      assert.equal(found?.client_id, clientId);
      assert.equal(found?.account_id, accountId);
      assert.equal(found?.expires_at, NOW + 3600);
      assert.equal(found?.revoked_at, null);
      assert.equal(found?.account_disabled, 0);
      assert.equal(await t.store.bearerTokens.find('unknown'), undefined);
    });

    it('find sees a revocation and a disabled account at once', async () => {
      await t.store.bearerTokens.find(token);
      await t.storage.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', accountId).execute();
      assert.equal((await t.store.bearerTokens.find(token))?.account_disabled, 1);
      await t.storage.db.updateTable('accounts').set({ disabled: 0 }).where('id', '=', accountId).execute();
    });

    it('findWithMemberships and findWithClaims answer the same token, and the account where they read it', async () => {
      const withMemberships = await t.store.bearerTokens.findWithMemberships(token);
      assert.equal(withMemberships.token?.account_id, accountId);
      if (withMemberships.memberships) assert.equal(withMemberships.memberships[0]?.account_id, accountId);
      const withClaims = await t.store.bearerTokens.findWithClaims(token);
      assert.equal(withClaims.token?.account_id, accountId);
      if (withClaims.account) assert.equal(withClaims.account.id, accountId);
      assert.equal((await t.store.bearerTokens.findWithMemberships('unknown')).token, undefined);
      assert.equal((await t.store.bearerTokens.findWithClaims('unknown')).token, undefined);
    });
  });
}
