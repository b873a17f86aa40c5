import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Account, School } from '../../src/storage/schema.js';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';

const account = (id: string): Account => ({
  id,
  email: `${id}@example.com`,
  name: id,
  password_hash: 'hash-0',
  locale: 'en',
  disabled: 0,
  created_at: 1,
  updated_at: 1,
});

const school = (id: string, slug: string): School => ({
  id,
  slug,
  name: slug,
  description: '',
  settings: '{}',
  appearance: '{}',
  created_at: 1,
  updated_at: 1,
});

for (const dialect of DIALECTS) {
  describe(`store contract: accounts for the operator (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
    });
    after(() => t.close());

    it('creates an account with the school its placement makes, and its membership, in one step', async () => {
      const placed = await t.store.accounts.create(account('acc_1'), 'new-school', (found) => {
        assert.equal(found, undefined);
        return { school: school('sch_new', 'new-school'), created: true, role: 'owner' };
      });
      assert.equal(placed.created, true);
      assert.equal((await t.store.accounts.findByEmail('acc_1@example.com'))?.id, 'acc_1');
      assert.deepEqual(await t.store.accounts.listMemberships(), [
        { account_id: 'acc_1', slug: 'new-school', role: 'owner' },
      ]);
      assert.equal(await t.store.accounts.count(), 1);
    });

    it('writes nothing when the placement refuses, nor when a later insert fails', async () => {
      await assert.rejects(
        t.store.accounts.create(account('acc_2'), 'nowhere', () => {
          throw new Error('refused');
        }),
        /refused/,
      );
      // The school would be new, the account's id is taken: the school's insert is rolled back too.
      await assert.rejects(
        t.store.accounts.create(account('acc_1'), 'other-school', () => ({
          school: school('sch_other', 'other-school'),
          created: true,
          role: 'owner',
        })),
      );
      assert.equal(await t.store.school.find('other-school'), undefined);
      assert.equal(await t.store.accounts.count(), 1);
    });

    it('joins a school once: refuse sees the school and the current role, and a refusal adds nothing', async () => {
      await t.store.school.insert(school('sch_j', 'join-me'));
      const seen: unknown[] = [];
      const refuse = (found: School | undefined, role: string | undefined) => {
        seen.push([found?.slug, role]);
        if (!found || role) throw new Error('refused');
      };
      await assert.rejects(t.store.accounts.join('acc_1', 'absent', 'admin', 2, refuse), /refused/);
      assert.equal((await t.store.accounts.join('acc_1', 'join-me', 'admin', 2, refuse)).id, 'sch_j');
      await assert.rejects(t.store.accounts.join('acc_1', 'join-me', 'owner', 2, refuse), /refused/);
      assert.deepEqual(seen, [
        [undefined, undefined],
        ['join-me', undefined],
        ['join-me', 'admin'],
      ]);
      assert.equal((await t.store.accounts.listMemberships()).length, 2);
    });

    it('disables an account and ends its sessions; a password reset ends sessions and counts them', async () => {
      const session = (id: string) => ({
        id_hash: id,
        account_id: 'acc_1',
        csrf_secret: 'c',
        created_at: 1,
        last_seen_at: 1,
        expires_at: 10_000_000_000,
        auth_time: 1,
      });
      await t.storage.db
        .insertInto('sessions')
        .values([session('s1'), session('s2')])
        .execute();
      const reset = await t.store.accounts.resetPassword('acc_1', 'hash-1', 3, true);
      assert.deepEqual(reset, { sessions: 2, apps: undefined });
      assert.equal((await t.store.accounts.findByEmail('acc_1@example.com'))?.password_hash, 'hash-1');
      await t.storage.db.insertInto('sessions').values(session('s3')).execute();
      await t.store.accounts.disable('acc_1', 4);
      assert.equal((await t.store.accounts.findByEmail('acc_1@example.com'))?.disabled, 1);
      const left = await t.storage.db.selectFrom('sessions').select('id_hash').execute();
      assert.deepEqual(left, []);
    });
  });
}
