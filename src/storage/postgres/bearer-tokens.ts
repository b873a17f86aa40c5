/**
 * Bearer lookups on PostgreSQL: every statement is a round trip, so the token is read with what
 * the route answers from, in one statement and one snapshot (docs/performance.md "PostgreSQL").
 */
import type { Kysely } from 'kysely';
import {
  findBearerTokenWithClaims,
  findBearerTokenWithMemberships,
} from '../bearer-joined-reads.repository.js';
import { findBearerToken } from '../bearer-tokens.repository.js';
import type { BearerTokens } from '../contract/bearer-tokens.js';
import type { Database } from '../schema.js';

export function postgresBearerTokens(db: Kysely<Database>): BearerTokens {
  return {
    find: (tokenHash) => findBearerToken(db, tokenHash),
    async findWithMemberships(tokenHash) {
      const rows = await findBearerTokenWithMemberships(db, tokenHash);
      return { token: rows[0], memberships: rows };
    },
    async findWithClaims(tokenHash) {
      const found = await findBearerTokenWithClaims(db, tokenHash);
      return { token: found?.token, account: found?.account };
    },
  };
}
