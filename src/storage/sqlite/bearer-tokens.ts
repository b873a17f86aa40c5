/**
 * Bearer lookups on SQLite: one synchronous read while the connection is free, from the rows kept
 * while neither table changed (read-cache.ts); the account's other rows are read by the route,
 * where they are synchronous and cached too, so a join would only cost.
 */
import type { Kysely } from 'kysely';
import { findBearerToken, findBearerTokenNow } from '../bearer-tokens.repository.js';
import type { BearerTokens } from '../contract/bearer-tokens.js';
import type { Database } from '../schema.js';

export function sqliteBearerTokens(db: Kysely<Database>): BearerTokens {
  const find: BearerTokens['find'] = (tokenHash) => {
    const found = findBearerTokenNow(db, tokenHash);
    return found.now ? found.value : findBearerToken(db, tokenHash);
  };
  return {
    find,
    findWithMemberships(tokenHash) {
      const token = find(tokenHash);
      return token instanceof Promise ? token.then((row) => ({ token: row })) : { token };
    },
    findWithClaims: async (tokenHash) => ({ token: await find(tokenHash) }),
  };
}
