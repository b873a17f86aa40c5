/** The accounts as the API answers about them. */
import type { AccountRow, MembershipRow } from '../account-memberships.repository.js';
import type { Account, Role, School } from '../schema.js';
import type { MaybeNow } from './bearer-tokens.js';

export type { AccountRow, MembershipRow };

/** Where a new account goes: its school (new, to insert, or found by slug) and its role there. */
export interface Placement {
  readonly school: School;
  readonly created: boolean;
  readonly role: Role;
}

/** What the operator (CLI) and the demo seed do with accounts. */
export interface AccountAdmin {
  findByEmail(email: string): Promise<Account | undefined>;
  /** Every account, by email. */
  list(): Promise<Account[]>;
  /** Every membership with its school's slug, by slug. */
  listMemberships(): Promise<Array<{ account_id: string; slug: string; role: Role }>>;
  count(): Promise<number>;
  /** Sets columns of the account, and its updated_at. */
  update(
    accountId: string,
    changes: Partial<Pick<Account, 'name' | 'password_hash' | 'disabled' | 'locale'>>,
    now: number,
  ): Promise<void>;
  /**
   * In one transaction: the school of `slug` read, `place` deciding from it (a throw writes
   * nothing), the school inserted when `place` made it, the account and its membership.
   */
  create(
    account: Account,
    slug: string,
    place: (school: School | undefined) => Placement,
  ): Promise<Placement>;
  /**
   * In one transaction: the school of `slug` and the account's role there read, `refuse`
   * throwing when the join is not allowed (no such school, already a member), the membership.
   */
  join(
    accountId: string,
    slug: string,
    role: Role,
    now: number,
    refuse: (school: School | undefined, currentRole: Role | undefined) => void,
  ): Promise<School>;
  /** In one transaction: the account disabled, its sessions ended, its grants and their tokens revoked. */
  disable(accountId: string, now: number): Promise<void>;
  /**
   * In one transaction: the new password hash, the account's sessions ended and, unless
   * `keepApps`, every app's grants, tokens and remembered consents revoked.
   */
  resetPassword(
    accountId: string,
    passwordHash: string,
    now: number,
    keepApps: boolean,
  ): Promise<{ sessions: number; apps: { apps: number; grants: number } | undefined }>;
}

/** What the request paths ask: each backend reads these its own way (sqlite/, postgres/accounts.ts). */
export interface AccountReads {
  findById(accountId: string): Promise<Account | undefined>;
  /** The account with its memberships: one row per membership; none when there is no such account. */
  withMemberships(accountId: string): Promise<AccountRow[]>;
  /**
   * The account's answer: `build` of withMemberships' rows, read fresh each time, and answered
   * without a promise when the backend can read now (SQLite with its connection free). `build`
   * may throw (no such account).
   */
  answerFor(accountId: string, build: (rows: AccountRow[]) => string): MaybeNow<string>;
}

export interface Accounts extends AccountReads, AccountAdmin {}
