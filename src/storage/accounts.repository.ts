import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { Account, Database, Membership, NewAccount, Role, School } from './schema.js';

const byId = prepared((db, id: string) => db.selectFrom('accounts').selectAll().where('id', '=', id));

export function findAccountByEmail(db: Kysely<Database>, email: string): Promise<Account | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export function findAccountById(db: Kysely<Database>, id: string): Promise<Account | undefined> {
  return byId.first(db, id);
}

export async function insertAccount(db: Kysely<Database>, account: NewAccount): Promise<void> {
  await db.insertInto('accounts').values(account).execute();
}

export function listAccounts(db: Kysely<Database>): Promise<Account[]> {
  return db.selectFrom('accounts').selectAll().orderBy('email').execute();
}

/** Every membership with its school's slug, by school slug. */
export function listMemberships(
  db: Kysely<Database>,
): Promise<Array<{ account_id: string; slug: string; role: Role }>> {
  return db
    .selectFrom('memberships')
    .innerJoin('schools', 'schools.id', 'memberships.school_id')
    .select(['memberships.account_id', 'schools.slug', 'memberships.role'])
    .orderBy('schools.slug')
    .execute() as Promise<Array<{ account_id: string; slug: string; role: Role }>>;
}

export async function updateAccount(
  db: Kysely<Database>,
  id: string,
  changes: Partial<Pick<Account, 'name' | 'password_hash' | 'disabled' | 'locale'>>,
  now: number,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export function findSchoolBySlug(db: Kysely<Database>, slug: string): Promise<School | undefined> {
  return db.selectFrom('schools').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export function listSchools(db: Kysely<Database>): Promise<School[]> {
  return db.selectFrom('schools').selectAll().orderBy('slug').execute();
}

export async function insertSchool(db: Kysely<Database>, school: School): Promise<void> {
  await db.insertInto('schools').values(school).execute();
}

export async function insertMembership(db: Kysely<Database>, membership: Membership): Promise<void> {
  await db.insertInto('memberships').values(membership).execute();
}

export function membershipsOf(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('schools', 'schools.id', 'memberships.school_id')
    .select(['schools.id as school_id', 'schools.slug', 'schools.name', 'memberships.role'])
    .where('memberships.account_id', '=', accountId)
    .orderBy('schools.slug')
    .execute() as Promise<Array<{ school_id: string; slug: string; name: string; role: Role }>>;
}

export async function countAccounts(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
