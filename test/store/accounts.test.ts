import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';
import { addAccount } from '../ops/fixtures.js';

for (const dialect of DIALECTS) {
  describe(`store contract: accounts (${dialect})`, () => {
    let t: TestStore;
    let accountId: string;
    before(async () => {
      t = await openTestStore(dialect);
      accountId = await addAccount(t.storage.db, 1_000);
    });
    after(() => t.close());

    const answer = async (build: (rows: { school_id: string | null }[]) => string) =>
      await t.store.accounts.answerFor(accountId, build);
    const schools = (rows: { school_id: string | null }[]) =>
      rows.map((row) => row.school_id ?? '-').join(',');

    it('withMemberships answers one row without a membership, and none for an unknown account', async () => {
      const rows = await t.store.accounts.withMemberships(accountId);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.school_id, null);
      assert.deepEqual(await t.store.accounts.withMemberships('acc_unknown'), []);
    });

    it('answerFor is always what a fresh read gives: a new membership changes it at once', async () => {
      assert.equal(await answer(schools), '-');
      await t.storage.db
        .insertInto('schools')
        .values({
          id: 'sch_1',
          slug: 'one',
          name: 'One',
          description: '',
          settings: '{}',
          appearance: '{}',
          created_at: 1,
          updated_at: 1,
        })
        .execute();
      await t.storage.db
        .insertInto('memberships')
        .values({ account_id: accountId, school_id: 'sch_1', role: 'owner', created_at: 1 })
        .execute();
      assert.equal(await answer(schools), 'sch_1');
    });

    it('answerFor passes on what build throws, and keeps nothing of it', async () => {
      const failing = async () =>
        await t.store.accounts.answerFor('acc_unknown', () => {
          throw new Error('no such account');
        });
      await assert.rejects(failing, /no such account/);
      assert.equal(
        await t.store.accounts.answerFor('acc_unknown', (rows) => `rows ${rows.length}`),
        'rows 0',
      );
    });
  });
}
