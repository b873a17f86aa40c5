/**
 * Bearer lookups on SQLite: one synchronous indexed read, answered without a promise while the
 * connection is free (connection.ts); the account's other rows are read by the route, where they
 * are synchronous too, so a join would only cost.
 */
import { bearerWithAccount } from '../bearer-tokens.repository.js';
import type { BearerTokens } from '../contract/bearer-tokens.js';
import type { SqliteConnection } from './connection.js';

export function sqliteBearerTokens(connection: SqliteConnection): BearerTokens {
  const find: BearerTokens['find'] = (tokenHash) =>
    connection.read((sql) => bearerWithAccount.firstNow(sql, tokenHash));
  return {
    find,
    findWithMemberships(tokenHash) {
      const token = find(tokenHash);
      return token instanceof Promise ? token.then((row) => ({ token: row })) : { token };
    },
    findWithClaims: async (tokenHash) => ({ token: await find(tokenHash) }),
  };
}
