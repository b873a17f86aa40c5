/** Reads of codes, tokens and grants by the token endpoint, introspection and consent. */
import type { AccessToken, AuthorizationCode, Consent, Grant, RefreshToken } from '../schema.js';

export interface Tokens {
  /** The authorization code with this hash, whoever's it is. */
  findCode(codeHash: string): Promise<AuthorizationCode | undefined>;
  /** A new grant with its authorization code, written together (RFC 6749 §4.1.2). */
  issueCode(grant: Grant, code: AuthorizationCode): Promise<void>;
  /** The refresh token with this hash, whoever's it is. */
  findRefresh(tokenHash: string): Promise<RefreshToken | undefined>;
  /** The access token with this hash, whoever's it is. */
  findAccess(tokenHash: string): Promise<AccessToken | undefined>;
  /** When the person of this grant authenticated (the ID token's auth_time); undefined when no such grant. */
  grantAuthTime(grantId: string): Promise<number | undefined>;
}

export interface Consents {
  /** The scopes this person allowed this client, remembered (one row per person and client). */
  find(accountId: string, clientId: string): Promise<Consent | undefined>;
  /** Remembers these scopes, replacing what was remembered. */
  save(accountId: string, clientId: string, scopes: string, now: number): Promise<void>;
}
