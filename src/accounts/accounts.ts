/**
 * Account and school operations shared by the CLI, the demo seed and the API: validation and
 * the rules (a new school gets its creator as owner), on top of the repository.
 */
import type { Kysely } from 'kysely';
import { hashPassword, passwordProblem } from '../crypto/password.js';
import { randomId } from '../crypto/tokens.js';
import {
  findAccountByEmail,
  findSchoolBySlug,
  insertAccount,
  insertMembership,
  insertSchool,
  membershipsOf,
} from '../storage/accounts.repository.js';
import type { Account, Database, Role, School } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';

/** The operation conflicts with what exists (an email or school taken). */
export class AccountRuleError extends Error {}
/** A value that can never be accepted (a malformed email, a short password): the caller asks again. */
export class AccountInputError extends AccountRuleError {}

/** The email belongs to an account already: `account join` adds that account to another school. */
export class EmailTakenError extends AccountRuleError {}

/** The role an account gets when it joins an existing school and none is named. */
export const DEFAULT_JOIN_ROLE: Role = 'admin';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;
export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (!EMAIL.test(value))
    throw new AccountInputError(`"${email}" is not an email address; send one like ada@example.com`);
  return value;
}

export async function createSchool(
  db: Kysely<Database>,
  input: { slug: string; name: string; description?: string },
  now: number,
): Promise<School> {
  if (!SLUG.test(input.slug)) {
    throw new AccountInputError(
      `school slug "${input.slug}" must be lower-case letters, digits and inner hyphens`,
    );
  }
  const name = input.name.trim();
  if (!name)
    throw new AccountInputError(`school "${input.slug}" needs a display name, such as "Maths Academy"`);
  if (await findSchoolBySlug(db, input.slug))
    throw new AccountRuleError(`school "${input.slug}" already exists`);
  const school: School = {
    id: randomId('sch_'),
    slug: input.slug,
    name,
    description: input.description ?? '',
    settings: JSON.stringify({ timezone: 'UTC', currency: 'EUR', language: 'en' }),
    appearance: JSON.stringify({ primary_color: '#1f6feb', theme: 'light' }),
    created_at: now,
    updated_at: now,
  };
  await insertSchool(db, school);
  return school;
}

export interface CreatedAccount {
  readonly account: Account;
  readonly school: School;
  readonly schoolCreated: boolean;
  readonly role: Role;
}

export interface NewAccountInput {
  readonly email: string;
  readonly name: string;
  readonly password: string;
  /** The school's slug. */
  readonly school: string;
  /** The display name of the school, needed when it does not exist yet. */
  readonly schoolName?: string;
  /** The role in an existing school (default DEFAULT_JOIN_ROLE); a new school's first account is its owner. */
  readonly role?: Role;
}

/** Creates an account in a school; creates the school, with the account as owner, when it does not exist. */
export async function createAccount(
  db: Kysely<Database>,
  input: NewAccountInput,
  now: number,
): Promise<CreatedAccount> {
  const email = normaliseEmail(input.email);
  const problem = passwordProblem(input.password);
  if (problem) throw new AccountInputError(problem);
  if (!input.name.trim()) throw new AccountInputError('the name must not be empty');
  if (await findAccountByEmail(db, email))
    throw new EmailTakenError(`an account with email ${email} already exists`);
  const passwordHash = await hashPassword(input.password);
  return inTransaction(db, async (trx) => {
    let school = await findSchoolBySlug(trx, input.school);
    const schoolCreated = !school;
    if (!school) {
      if (input.role !== undefined && input.role !== 'owner') {
        throw new AccountInputError(
          `school "${input.school}" does not exist yet and its first account is its owner, not ${input.role}`,
        );
      }
      if (input.schoolName === undefined) {
        throw new AccountInputError(
          `school "${input.school}" does not exist yet; give its display name to create it, with this account as owner`,
        );
      }
      school = await createSchool(trx, { slug: input.school, name: input.schoolName }, now);
    }
    const account: Account = {
      id: randomId('acc_'),
      email,
      name: input.name.trim(),
      password_hash: passwordHash,
      locale: 'en',
      disabled: 0,
      created_at: now,
      updated_at: now,
    };
    await insertAccount(trx, account);
    const role: Role = schoolCreated ? 'owner' : (input.role ?? DEFAULT_JOIN_ROLE);
    await insertMembership(trx, { account_id: account.id, school_id: school.id, role, created_at: now });
    return { account, school, schoolCreated, role };
  });
}

export interface Joined {
  readonly school: School;
  readonly role: Role;
}

/**
 * Adds an existing account to another school (a person who teaches at two schools has one
 * account, one password, and a membership in each). Refused when the school does not exist or
 * the account is already a member there: its role is not changed behind the operator's back.
 */
export async function joinSchool(
  db: Kysely<Database>,
  account: Pick<Account, 'id' | 'email'>,
  slug: string,
  role: Role,
  now: number,
): Promise<Joined> {
  return inTransaction(db, async (trx) => {
    const school = await findSchoolBySlug(trx, slug);
    if (!school) {
      throw new AccountRuleError(
        `school "${slug}" does not exist; schoolauth school list shows the schools, schoolauth school create makes one`,
      );
    }
    const member = (await membershipsOf(trx, account.id)).find((m) => m.school_id === school.id);
    if (member) {
      throw new AccountRuleError(`${account.email} is already a member of school ${slug}, as ${member.role}`);
    }
    await insertMembership(trx, { account_id: account.id, school_id: school.id, role, created_at: now });
    return { school, role };
  });
}
