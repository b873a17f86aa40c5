/** The accounts as the API answers about them. */
import type { AccountRow, MembershipRow } from '../account-memberships.repository.js';
import type { Account } from '../schema.js';
import type { MaybeNow } from './bearer-tokens.js';

export type { AccountRow, MembershipRow };

export interface Accounts {
  findById(accountId: string): Promise<Account | undefined>;
  /** The account with its memberships: one row per membership; none when there is no such account. */
  withMemberships(accountId: string): Promise<AccountRow[]>;
  /**
   * The account's answer: `build` of withMemberships' rows, at once when the backend can read
   * now, and kept per account while no row of accounts, memberships or schools may have changed,
   * so that it is always what a fresh read would give (docs/performance.md: agents ask who they
   * act for at every start). `build` may throw (no such account); nothing is kept then.
   */
  answerFor(accountId: string, build: (rows: AccountRow[]) => string): MaybeNow<string>;
}
