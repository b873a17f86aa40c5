/** The school section of the store (contract/school.ts): the same statements on both databases. */
import type { Kysely } from 'kysely';
import { findSchoolBySlug, insertSchool, listSchools, membershipsOf } from './accounts.repository.js';
import type { SchoolData } from './contract/school.js';
import type { Database } from './schema.js';
import { deleteRow, getRow, insertRow, listRows, rowExists, updateRow } from './school-rows.repository.js';

export function schoolSection(db: Kysely<Database>): SchoolData {
  return {
    find: (slug) => findSchoolBySlug(db, slug),
    async findWithRole(slug, accountId) {
      const row = await db
        .selectFrom('schools')
        .leftJoin('memberships', (join) =>
          join.onRef('memberships.school_id', '=', 'schools.id').on('memberships.account_id', '=', accountId),
        )
        .selectAll('schools')
        .select('memberships.role')
        .where('schools.slug', '=', slug)
        .executeTakeFirst();
      if (!row) return undefined;
      const { role, ...school } = row;
      return { school, role: role ?? null };
    },
    list: () => listSchools(db),
    insert: (school) => insertSchool(db, school),
    async update(schoolId, changes) {
      await db.updateTable('schools').set(changes).where('id', '=', schoolId).execute();
    },
    membershipsOf: (accountId) => membershipsOf(db, accountId),
    listRows: (family, scope, page) => listRows(db, family, scope, page),
    getRow: (family, scope, id) => getRow(db, family, scope, id),
    insertRow: (family, row) => insertRow(db, family, row),
    updateRow: (family, scope, id, changes) => updateRow(db, family, scope, id, changes),
    deleteRow: (family, scope, id) => deleteRow(db, family, scope, id),
    rowExists: (table, schoolId, id, parent) => rowExists(db, table, schoolId, id, parent),
    async insertUpload(upload) {
      await db.insertInto('uploads').values(upload).execute();
    },
    findUpload: (id) => db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst(),
    studentCounts: (schoolId) =>
      db
        .selectFrom('students')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('school_id', '=', schoolId)
        .groupBy('status')
        .execute(),
    orderFigures: (schoolId) =>
      db
        .selectFrom('orders')
        .select([
          'status',
          'currency',
          (eb) => eb.fn.countAll<number>().as('n'),
          (eb) => eb.fn.sum<number>('amount_cents').as('cents'),
        ])
        .where('school_id', '=', schoolId)
        .groupBy(['status', 'currency'])
        .execute(),
  };
}
