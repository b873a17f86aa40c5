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
   * The account's answer: `build` of withMemberships' rows, read fresh each time, and answered
   * without a promise when the backend can read now (SQLite with its connection free). `build`
   * may throw (no such account).
   */
  answerFor(accountId: string, build: (rows: AccountRow[]) => string): MaybeNow<string>;
}
