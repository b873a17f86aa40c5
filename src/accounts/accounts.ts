/**
 * Account and school operations shared by the CLI, the demo seed and the API: validation and
 * the rules (a new school gets its creator as owner), on top of the store.
 */
import { hashPassword, passwordProblem } from '../crypto/password.js';
import { randomId } from '../crypto/tokens.js';
import type { Account, Role, School } from '../storage/schema.js';
import type { Store } from '../storage/store.js';

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

/** A new school's row, its slug and name judged (AccountInputError); not yet stored. */
function newSchool(input: { slug: string; name: string; description?: string }, now: number): School {
  if (!SLUG.test(input.slug)) {
    throw new AccountInputError(
      `school slug "${input.slug}" must be lower-case letters, digits and inner hyphens`,
    );
  }
  const name = input.name.trim();
  if (!name)
    throw new AccountInputError(`school "${input.slug}" needs a display name, such as "Maths Academy"`);
  return {
    id: randomId('sch_'),
    slug: input.slug,
    name,
    description: input.description ?? '',
    settings: JSON.stringify({ timezone: 'UTC', currency: 'EUR', language: 'en' }),
    appearance: JSON.stringify({ primary_color: '#1f6feb', theme: 'light' }),
    created_at: now,
    updated_at: now,
  };
}

export async function createSchool(
  store: Store,
  input: { slug: string; name: string; description?: string },
  now: number,
): Promise<School> {
  const school = newSchool(input, now);
  if (await store.school.find(input.slug))
    throw new AccountRuleError(`school "${input.slug}" already exists`);
  await store.school.insert(school);
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
  store: Store,
  input: NewAccountInput,
  now: number,
): Promise<CreatedAccount> {
  const email = normaliseEmail(input.email);
  const problem = passwordProblem(input.password);
  if (problem) throw new AccountInputError(problem);
  if (!input.name.trim()) throw new AccountInputError('the name must not be empty');
  if (await store.accounts.findByEmail(email))
    throw new EmailTakenError(`an account with email ${email} already exists`);
  const account: Account = {
    id: randomId('acc_'),
    email,
    name: input.name.trim(),
    password_hash: await hashPassword(input.password),
    locale: 'en',
    disabled: 0,
    created_at: now,
    updated_at: now,
  };
  const placed = await store.accounts.create(account, input.school, (school) => {
    if (school) return { school, created: false, role: input.role ?? DEFAULT_JOIN_ROLE };
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
    return {
      school: newSchool({ slug: input.school, name: input.schoolName }, now),
      created: true,
      role: 'owner',
    };
  });
  return { account, school: placed.school, schoolCreated: placed.created, role: placed.role };
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
  store: Store,
  account: Pick<Account, 'id' | 'email'>,
  slug: string,
  role: Role,
  now: number,
): Promise<Joined> {
  const school = await store.accounts.join(account.id, slug, role, now, (found, current) => {
    if (!found) {
      throw new AccountRuleError(
        `school "${slug}" does not exist; schoolauth school list shows the schools, schoolauth school create makes one`,
      );
    }
    if (current)
      throw new AccountRuleError(`${account.email} is already a member of school ${slug}, as ${current}`);
  });
  return { school, role };
}
