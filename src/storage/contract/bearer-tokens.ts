/**
 * Access tokens as a protected request presents them (RFC 6750): looked up by their hash with
 * what judging them needs, and on request with what the route answers from.
 */
import type { AccountClaims, TokenAccountRow } from '../bearer-joined-reads.repository.js';
import type { AccessTokenWithAccount, BearerToken } from '../bearer-tokens.repository.js';

export type { AccessTokenWithAccount, AccountClaims, BearerToken, TokenAccountRow };

/**
 * A value the backend could read without waiting, or a promise of it: the guard of every
 * protected request answers without a promise when it can (docs/performance.md).
 */
export type MaybeNow<T> = T | Promise<T>;

export interface BearerTokens {
  /** The token by its hash, joined to its account (a disabled or missing account reads so). */
  find(tokenHash: string): MaybeNow<AccessTokenWithAccount | undefined>;
  /**
   * The same, and the account with its memberships (one row per membership) where the backend
   * reads them in the same statement (PostgreSQL); `memberships` undefined means "not read with
   * the token": the route reads them itself.
   */
  findWithMemberships(
    tokenHash: string,
  ): MaybeNow<{ token: AccessTokenWithAccount | undefined; memberships?: TokenAccountRow[] }>;
  /**
   * The same, and the account's claims (UserInfo) where the backend reads them in the same
   * statement; `account` undefined means "not read with the token": read it by id.
   */
  findWithClaims(
    tokenHash: string,
  ): Promise<{ token: AccessTokenWithAccount | undefined; account?: AccountClaims | undefined }>;
}
