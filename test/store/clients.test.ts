import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditEventRow, Client } from '../../src/storage/schema.js';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';
import { addAccount, addClient, addCode, addGrant, addToken, clientRow } from '../ops/fixtures.js';

const client = (id: string): Client => clientRow(id, 'dynamic', 1_000);

const registered = (id: string): AuditEventRow => ({
  at: 1_000,
  kind: 'client.registered',
  account_id: null,
  client_id: id,
  ip: '127.0.0.1',
  detail: '{}',
});

for (const dialect of DIALECTS) {
  describe(`store contract: clients (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
    });
    after(() => t.close());

    const auditRows = async (id: string) =>
      (await t.storage.db.selectFrom('audit_events').select('kind').where('client_id', '=', id).execute())
        .length;

    it('register writes the client and its audit row together', async () => {
      await t.store.clients.register(client('dyn_one'), registered('dyn_one'));
      const row = await t.storage.db
        .selectFrom('clients')
        .select('id')
        .where('id', '=', 'dyn_one')
        .executeTakeFirst();
      assert.equal(row?.id, 'dyn_one');
      assert.equal(await auditRows('dyn_one'), 1);
    });

    it('register writes neither row when the client cannot be written', async () => {
      await t.store.clients.register(client('dyn_two'), registered('dyn_two'));
      await assert.rejects(t.store.clients.register(client('dyn_two'), registered('dyn_two')));
      assert.equal(await auditRows('dyn_two'), 1, 'the failed registration left no audit row');
    });

    it('register keeps no client when its audit row cannot be written', async () => {
      const broken = { ...registered('dyn_three'), kind: null } as unknown as AuditEventRow;
      await assert.rejects(t.store.clients.register(client('dyn_three'), broken));
      const row = await t.storage.db
        .selectFrom('clients')
        .select('id')
        .where('id', '=', 'dyn_three')
        .executeTakeFirst();
      assert.equal(row, undefined);
    });

    it('findWithCode, findWithRefreshToken and findWithAccessToken answer the client and the row, whoever’s it is', async () => {
      const db = t.storage.db;
      const accountId = await addAccount(db, 1_000);
      const owner = await addClient(db, 'dynamic', 1_000);
      const other = await addClient(db, 'dynamic', 1_000);
      const grant = { id: await addGrant(db, accountId, owner, 1_000), accountId, clientId: owner };
      const code = await addCode(db, grant, 1_000, 1_060);
      const refresh = await addToken(db, 'refresh_tokens', grant, 1_000, 90_000);
      const access = await addToken(db, 'access_tokens', grant, 1_000, 4_600);
      for (const clientId of [owner, other]) {
        const withCode = await t.store.clients.findWithCode(clientId, code);
        assert.equal(withCode.client?.id, clientId);
        assert.equal(withCode.row?.client_id, owner);
        assert.equal((await t.store.clients.findWithRefreshToken(clientId, refresh)).row?.grant_id, grant.id);
        const withAccess = await t.store.clients.findWithAccessToken(clientId, access);
        assert.equal(withAccess.row?.account_id, accountId);
        assert.equal(withAccess.row?.account_disabled, 0);
      }
      assert.equal((await t.store.clients.findWithCode(owner, 'unknown')).row, undefined);
      assert.deepEqual(await t.store.clients.findWithCode('dyn_unknown', code), {
        client: undefined,
        row: undefined,
      });
      // An id no client can have (PostgreSQL refuses NUL in text): unknown, not a fault.
      assert.equal(await t.store.clients.find('dyn_\u0000'), undefined);
      assert.deepEqual(await t.store.clients.findWithRefreshToken('dyn_\u0000', refresh), {
        client: undefined,
        row: undefined,
      });
    });
  });
}
