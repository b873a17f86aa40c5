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
} from '../storage/accounts.repository.js';
import type { Account, Database, Role, School } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';

export class AccountRuleError extends Error {}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;
export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (!EMAIL.test(value))
    throw new AccountRuleError(`"${email}" is not an email address; send one like ada@example.com`);
  return value;
}

export async function createSchool(
  db: Kysely<Database>,
  input: { slug: string; name: string; description?: string },
  now: number,
): Promise<School> {
  if (!SLUG.test(input.slug)) {
    throw new AccountRuleError(
      `school slug "${input.slug}" must be lower-case letters, digits and inner hyphens`,
    );
  }
  if (await findSchoolBySlug(db, input.slug))
    throw new AccountRuleError(`school "${input.slug}" already exists`);
  const school: School = {
    id: randomId('sch_'),
    slug: input.slug,
    name: input.name.trim() || input.slug,
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
}

/** Creates an account in a school; creates the school, with the account as owner, when it does not exist. */
export async function createAccount(
  db: Kysely<Database>,
  input: { email: string; name: string; password: string; school: string; role?: Role },
  now: number,
): Promise<CreatedAccount> {
  const email = normaliseEmail(input.email);
  const problem = passwordProblem(input.password);
  if (problem) throw new AccountRuleError(problem);
  if (!input.name.trim()) throw new AccountRuleError('the name must not be empty');
  if (await findAccountByEmail(db, email))
    throw new AccountRuleError(`an account with email ${email} already exists`);
  const passwordHash = await hashPassword(input.password);
  return inTransaction(db, async (trx) => {
    let school = await findSchoolBySlug(trx, input.school);
    const schoolCreated = !school;
    school ??= await createSchool(trx, { slug: input.school, name: input.school }, now);
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
    const role: Role = schoolCreated ? 'owner' : (input.role ?? 'admin');
    await insertMembership(trx, { account_id: account.id, school_id: school.id, role, created_at: now });
    return { account, school, schoolCreated };
  });
}
