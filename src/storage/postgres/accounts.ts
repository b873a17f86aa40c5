/** The accounts section (../contract/accounts.ts) on PostgreSQL: read each time, nothing kept. */
import type { Kysely } from 'kysely';
import { accountWithMemberships } from '../account-memberships.repository.js';
import { findAccountById } from '../accounts.repository.js';
import type { AccountReads } from '../contract/accounts.js';
import type { Database } from '../schema.js';

export function postgresAccounts(db: Kysely<Database>): AccountReads {
  const withMemberships = (accountId: string) => accountWithMemberships.all(db, accountId);
  return {
    findById: (accountId) => findAccountById(db, accountId),
    withMemberships,
    answerFor: async (accountId, build) => build(await withMemberships(accountId)),
  };
}
