import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';
import { addAccount, addClient, addGrant, addToken } from '../ops/fixtures.js';

const NOW = 1_800_000_000;

for (const dialect of DIALECTS) {
  describe(`store contract: revocation (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
    });
    after(() => t.close());

    /** A grant of a new client with one access and one refresh token. */
    const grantWithTokens = async () => {
      const db = t.storage.db;
      const accountId = await addAccount(db, NOW);
      const clientId = await addClient(db, 'dynamic', NOW);
      const grant = { id: await addGrant(db, accountId, clientId, NOW), accountId, clientId };
      return {
        ...grant,
        access: await addToken(db, 'access_tokens', grant, NOW, NOW + 3600),
        refresh: await addToken(db, 'refresh_tokens', grant, NOW, NOW + 86400),
      };
    };
    const revokedAt = async (table: 'access_tokens' | 'refresh_tokens', hash: string) =>
      (
        await t.storage.db
          .selectFrom(table)
          .select('revoked_at')
          .where('token_hash', '=', hash)
          .executeTakeFirstOrThrow()
      ).revoked_at;
    const grantRevokedAt = async (id: string) =>
      (
        await t.storage.db
          .selectFrom('grants')
          .select('revoked_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).revoked_at;
    const audits = async (clientId: string) =>
      t.storage.db
        .selectFrom('audit_events')
        .select(['kind', 'account_id', 'detail'])
        .where('client_id', '=', clientId)
        .execute();
    const request = (clientId: string, tokenHash: string, hint?: string) => ({
      clientId,
      tokenHash,
      hint,
      ip: '127.0.0.1',
      now: NOW + 10,
    });

    it('revokeOwn of an access token revokes it alone, with its audit row', async () => {
      const g = await grantWithTokens();
      const revoked = await t.store.revocation.revokeOwn(request(g.clientId, g.access));
      assert.deepEqual(revoked, { kind: 'access', grantId: g.id, accountId: g.accountId });
      assert.equal(await revokedAt('access_tokens', g.access), NOW + 10);
      assert.equal(await revokedAt('refresh_tokens', g.refresh), null);
      assert.equal(await grantRevokedAt(g.id), null);
      const [audit, ...more] = await audits(g.clientId);
      assert.equal(more.length, 0);
      assert.equal(audit?.kind, 'token.revoked');
      assert.equal(audit?.account_id, g.accountId);
      assert.deepEqual(JSON.parse(audit?.detail ?? ''), { token_type: 'access', grant_id: g.id });
    });

    it('revokeOwn of a refresh token ends its whole grant, access tokens too, with one audit row', async () => {
      const g = await grantWithTokens();
      const revoked = await t.store.revocation.revokeOwn(request(g.clientId, g.refresh, 'refresh_token'));
      assert.deepEqual(revoked, { kind: 'refresh', grantId: g.id, accountId: g.accountId });
      assert.equal(await grantRevokedAt(g.id), NOW + 10);
      assert.notEqual(await revokedAt('access_tokens', g.access), null);
      assert.notEqual(await revokedAt('refresh_tokens', g.refresh), null);
      const rows = await audits(g.clientId);
      assert.deepEqual(
        rows.map((row) => JSON.parse(row.detail)),
        [{ token_type: 'refresh', grant_id: g.id }],
      );
    });

    it('revokeOwn finds a token whatever the hint says (the hint only orders the search)', async () => {
      const g = await grantWithTokens();
      assert.equal(
        (await t.store.revocation.revokeOwn(request(g.clientId, g.refresh, 'access_token')))?.kind,
        'refresh',
      );
      const h = await grantWithTokens();
      assert.equal(
        (await t.store.revocation.revokeOwn(request(h.clientId, h.access, 'refresh_token')))?.kind,
        'access',
      );
    });

    it("revokeOwn of another client's token, or of an unknown one, changes and records nothing", async () => {
      const g = await grantWithTokens();
      const stranger = await addClient(t.storage.db, 'dynamic', NOW);
      assert.equal(await t.store.revocation.revokeOwn(request(stranger, g.access)), undefined);
      assert.equal(await t.store.revocation.revokeOwn(request(stranger, g.refresh)), undefined);
      assert.equal(await t.store.revocation.revokeOwn(request(g.clientId, 'no-such-hash')), undefined);
      assert.equal(await revokedAt('access_tokens', g.access), null);
      assert.equal(await grantRevokedAt(g.id), null);
      assert.equal((await audits(stranger)).length, 0);
      assert.equal((await audits(g.clientId)).length, 0);
    });

    it('revokeOwn of one access token by many callers at once, on two instances, revokes and records it once', async () => {
      const g = await grantWithTokens();
      const other = (await t.second()).store;
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? other : t.store).revocation.revokeOwn(request(g.clientId, g.access)),
        ),
      );
      assert.equal(outcomes.filter((o) => o !== undefined).length, 1);
      assert.equal((await audits(g.clientId)).length, 1);
    });
  });
}
