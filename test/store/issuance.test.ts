import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintSecret } from '../../src/crypto/tokens.js';
import type { IssuanceWrites } from '../../src/storage/contract/issuance.js';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';
import { addAccount, addClient, addCode, addGrant, addToken } from '../ops/fixtures.js';

const NOW = 1_800_000_000;

interface Grant {
  readonly id: string;
  readonly accountId: string;
  readonly clientId: string;
}

/** A fresh token set of `grant`, as a grant writes it. */
function writesFor(grant: Grant, kind = 'token.issued'): IssuanceWrites {
  const common = {
    grant_id: grant.id,
    client_id: grant.clientId,
    account_id: grant.accountId,
    scopes: 'openid',
    resource: 'http://127.0.0.1',
    created_at: NOW,
    revoked_at: null,
    jkt: null,
  };
  return {
    now: NOW,
    access: { ...common, token_hash: mintSecret('accessToken').hash, expires_at: NOW + 3600 },
    refresh: {
      ...common,
      token_hash: mintSecret('refreshToken').hash,
      expires_at: NOW + 86400,
      rotated_at: null,
      successor: null,
    },
    audit: { at: NOW, kind, account_id: grant.accountId, client_id: grant.clientId, ip: null, detail: '{}' },
    touchClientId: grant.clientId,
  };
}

for (const dialect of DIALECTS) {
  describe(`store contract: issuance (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
    });
    after(() => t.close());

    const newGrant = async (): Promise<Grant> => {
      const db = t.storage.db;
      const accountId = await addAccount(db, NOW);
      const clientId = await addClient(db, 'dynamic', NOW);
      return { id: await addGrant(db, accountId, clientId, NOW), accountId, clientId };
    };
    const tokensOf = async (grantId: string) =>
      (
        await t.storage.db
          .selectFrom('access_tokens')
          .select('token_hash')
          .where('grant_id', '=', grantId)
          .execute()
      ).length;
    const auditsOf = async (clientId: string, kind: string) =>
      (
        await t.storage.db
          .selectFrom('audit_events')
          .select('id')
          .where('client_id', '=', clientId)
          .where('kind', '=', kind)
          .execute()
      ).length;

    it('redeemCode spends a code and writes its set, the audit row and the client’s last use', async () => {
      const g = await newGrant();
      const code = await addCode(t.storage.db, g, NOW, NOW + 60);
      const outcome = await t.store.issuance.redeemCode(code, g.id, writesFor(g));
      assert.equal(outcome.spent, true);
      assert.equal(typeof outcome.authTime, 'number');
      assert.equal(await tokensOf(g.id), 1);
      assert.equal(await auditsOf(g.clientId, 'token.issued'), 1);
      const client = await t.store.clients.find(g.clientId);
      assert.equal(client?.last_used_at, NOW);
    });

    it('redeemCode of one code by 20 callers at once, on two instances, spends it once and issues one set', async () => {
      const g = await newGrant();
      const code = await addCode(t.storage.db, g, NOW, NOW + 60);
      const other = (await t.second()).store;
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? other : t.store).issuance.redeemCode(code, g.id, writesFor(g)),
        ),
      );
      assert.equal(outcomes.filter((o) => o.spent).length, 1);
      assert.equal(await tokensOf(g.id), 1);
    });

    it('redeemCode on a revoked grant spends the code and writes nothing else', async () => {
      const g = await newGrant();
      const code = await addCode(t.storage.db, g, NOW, NOW + 60);
      await t.storage.db.updateTable('grants').set({ revoked_at: NOW }).where('id', '=', g.id).execute();
      const outcome = await t.store.issuance.redeemCode(code, g.id, writesFor(g));
      assert.deepEqual(outcome, { spent: true, authTime: undefined });
      assert.equal(await tokensOf(g.id), 0);
      assert.equal(await auditsOf(g.clientId, 'token.issued'), 0);
      assert.equal((await t.store.issuance.redeemCode(code, g.id, writesFor(g))).spent, false);
    });

    it('rotateRefreshToken by 20 callers at once, on two instances, rotates once and keeps the sealed successor', async () => {
      const g = await newGrant();
      const token = await addToken(t.storage.db, 'refresh_tokens', g, NOW, NOW + 86400);
      const other = (await t.second()).store;
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? other : t.store).issuance.rotateRefreshToken(
            token,
            g.id,
            'sealed',
            writesFor(g, 'token.refreshed'),
          ),
        ),
      );
      assert.equal(outcomes.filter((o) => o.spent).length, 1);
      assert.equal(await tokensOf(g.id), 1);
      const row = await t.storage.db
        .selectFrom('refresh_tokens')
        .select(['rotated_at', 'successor'])
        .where('token_hash', '=', token)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { rotated_at: NOW, successor: 'sealed' });
    });

    it('rotateRefreshToken of a revoked token rotates nothing', async () => {
      const g = await newGrant();
      const token = await addToken(t.storage.db, 'refresh_tokens', g, NOW, NOW + 86400);
      await t.storage.db
        .updateTable('refresh_tokens')
        .set({ revoked_at: NOW })
        .where('token_hash', '=', token)
        .execute();
      const outcome = await t.store.issuance.rotateRefreshToken(token, g.id, 'sealed', writesFor(g));
      assert.equal(outcome.spent, false);
      assert.equal(await tokensOf(g.id), 0);
    });

    it('revokeGrant revokes the grant with its tokens and writes the audit row with it', async () => {
      const g = await newGrant();
      const access = await addToken(t.storage.db, 'access_tokens', g, NOW, NOW + 3600);
      await t.store.issuance.revokeGrant(g.id, NOW + 5, {
        at: NOW + 5,
        kind: 'code.replayed',
        account_id: g.accountId,
        client_id: g.clientId,
        ip: null,
        detail: '{}',
      });
      const grant = await t.storage.db
        .selectFrom('grants')
        .select('revoked_at')
        .where('id', '=', g.id)
        .executeTakeFirst();
      assert.equal(grant?.revoked_at, NOW + 5);
      const token = await t.store.bearerTokens.find(access);
      assert.notEqual(token?.revoked_at, null);
      assert.equal(await auditsOf(g.clientId, 'code.replayed'), 1);
    });
  });
}
