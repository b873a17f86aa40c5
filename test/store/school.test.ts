import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { courses } from '../../src/school/families/courses.js';
import { sections } from '../../src/school/families/curriculum.js';
import type { School } from '../../src/storage/schema.js';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';

const school = (id: string, slug: string): School => ({
  id,
  slug,
  name: `School ${slug}`,
  description: '',
  settings: '{}',
  appearance: '{}',
  created_at: 1,
  updated_at: 1,
});

const course = (id: string, schoolId: string, status: string) => ({
  id,
  school_id: schoolId,
  title: `Course ${id}`,
  description: '',
  price_cents: 100,
  currency: 'EUR',
  status,
  created_at: 1,
  updated_at: 1,
});

for (const dialect of DIALECTS) {
  describe(`store contract: school (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
      await t.store.school.insert(school('sch_a', 'alpha'));
      await t.store.school.insert(school('sch_b', 'beta'));
    });
    after(() => t.close());

    it('finds a school by slug, with the role of a member and null for anyone else', async () => {
      assert.equal((await t.store.school.find('alpha'))?.id, 'sch_a');
      assert.equal(await t.store.school.find('nowhere'), undefined);
      const account = {
        id: 'acc_m',
        email: 'm@example.com',
        name: 'M',
        password_hash: 'x',
        locale: 'en',
        disabled: 0,
        created_at: 1,
        updated_at: 1,
      };
      await t.store.accounts.create(account, 'alpha', (found) => ({
        school: found!,
        created: false,
        role: 'admin',
      }));
      assert.deepEqual(
        { ...(await t.store.school.findWithRole('alpha', 'acc_m')), school: undefined },
        { school: undefined, role: 'admin' },
      );
      assert.equal((await t.store.school.findWithRole('beta', 'acc_m'))?.role, null);
      assert.equal(await t.store.school.findWithRole('nowhere', 'acc_m'), undefined);
      assert.deepEqual(
        (await t.store.school.membershipsOf('acc_m')).map((m) => [m.slug, m.role]),
        [['alpha', 'admin']],
      );
    });

    it('keeps family rows inside their school: pages in id order, public rows only when asked', async () => {
      for (const [id, status] of [
        ['crs_1', 'published'],
        ['crs_2', 'draft'],
        ['crs_3', 'published'],
      ] as const) {
        await t.store.school.insertRow(courses, course(id, 'sch_a', status));
      }
      await t.store.school.insertRow(courses, course('crs_9', 'sch_b', 'published'));
      const all = { schoolId: 'sch_a', publicOnly: false };
      const first = await t.store.school.listRows(courses, all, { limit: 2 });
      assert.deepEqual(
        first.rows.map((r) => r.id),
        ['crs_1', 'crs_2'],
      );
      assert.equal(first.more, true);
      const rest = await t.store.school.listRows(courses, all, { limit: 2, after: 'crs_2' });
      assert.deepEqual([rest.rows.map((r) => r.id), rest.more], [['crs_3'], false]);
      const pub = await t.store.school.listRows(
        courses,
        { schoolId: 'sch_a', publicOnly: true },
        { limit: 10 },
      );
      assert.deepEqual(
        pub.rows.map((r) => r.id),
        ['crs_1', 'crs_3'],
      );
      assert.equal(await t.store.school.getRow(courses, all, 'crs_9'), undefined);
      assert.equal(await t.store.school.rowExists('courses', 'sch_a', 'crs_9'), false);
      assert.equal(await t.store.school.rowExists('courses', 'sch_b', 'crs_9'), true);
    });

    it('updates and deletes a row only in its school and under its parent, answering whether it did', async () => {
      const all = { schoolId: 'sch_a', publicOnly: false };
      assert.equal(await t.store.school.updateRow(courses, all, 'crs_9', { title: 'taken' }), false);
      assert.equal(await t.store.school.updateRow(courses, all, 'crs_1', { title: 'Renamed' }), true);
      assert.equal((await t.store.school.getRow(courses, all, 'crs_1'))?.title, 'Renamed');
      await t.store.school.insertRow(sections, {
        id: 'sec_1',
        school_id: 'sch_a',
        course_id: 'crs_1',
        title: 'One',
        position: 1,
        created_at: 1,
        updated_at: 1,
      });
      const underOther = { schoolId: 'sch_a', parentId: 'crs_3', publicOnly: false };
      assert.equal(await t.store.school.deleteRow(sections, underOther, 'sec_1'), false);
      assert.equal(
        await t.store.school.deleteRow(sections, { ...underOther, parentId: 'crs_1' }, 'sec_1'),
        true,
      );
      assert.equal(await t.store.school.deleteRow(courses, all, 'crs_9'), false);
    });

    it('updates a school’s columns, stores an upload and finds it by id', async () => {
      await t.store.school.update('sch_b', { name: 'Beta School', updated_at: 2 });
      assert.equal((await t.store.school.find('beta'))?.name, 'Beta School');
      const upload = {
        id: 'upl_1',
        school_id: 'sch_b',
        account_id: 'acc_m',
        filename: 'a.txt',
        content_type: 'text/plain',
        size: 3,
        created_at: 1,
        updated_at: 1,
      };
      await t.store.school.insertUpload(upload);
      assert.deepEqual({ ...(await t.store.school.findUpload('upl_1')) }, upload);
      assert.equal(await t.store.school.findUpload('upl_2'), undefined);
    });
  });
}
