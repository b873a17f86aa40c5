/**
 * The accounts section (../contract/accounts.ts) on SQLite: the account with its memberships, one
 * synchronous read, answered without a promise while the connection is free (connection.ts).
 */
import { accountWithMemberships } from '../account-memberships.repository.js';
import { findAccountById } from '../accounts.repository.js';
import type { AccountReads } from '../contract/accounts.js';
import type { SqliteConnection } from './connection.js';

export function sqliteAccounts(connection: SqliteConnection): AccountReads {
  const rowsOf = (accountId: string) =>
    connection.read((sql) => accountWithMemberships.allNow(sql, accountId));
  return {
    findById: (accountId) => findAccountById(connection.db, accountId),
    withMemberships: (accountId) => Promise.resolve(rowsOf(accountId)),
    answerFor(accountId, build) {
      const rows = rowsOf(accountId);
      return rows instanceof Promise ? rows.then(build) : build(rows);
    },
  };
}
