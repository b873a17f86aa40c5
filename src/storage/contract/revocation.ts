/** Token revocation (RFC 7009) by the client the token was issued to. */

export interface Revoked {
  readonly kind: 'access' | 'refresh';
  readonly grantId: string;
  readonly accountId: string;
}

export interface OwnTokenRevocation {
  readonly clientId: string;
  readonly tokenHash: string;
  /** `token_type_hint`: only the order of the search (RFC 7009 §2.1). */
  readonly hint: string | undefined;
  /** For the audit row. */
  readonly ip: string;
  readonly now: number;
}

export interface Revocation {
  /**
   * Revokes the token if it is this client's: a refresh token's whole grant with all its tokens
   * (docs/decisions.md "UserInfo, revocation, introspection"), or one live access token. The
   * revocation and its `token.revoked` audit row are written together; undefined when no token
   * of this client has this hash, and nothing is written.
   */
  revokeOwn(request: OwnTokenRevocation): Promise<Revoked | undefined>;
}
