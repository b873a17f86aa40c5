/**
 * Building a token set: opaque access and refresh tokens (stored as hashes), the ID token when
 * `openid` was granted, and the RFC 6749 §5.1 response body.
 */

import { type AuditInput, auditRow, auditWritten } from '../../audit/audit.js';
import type { AppContext } from '../../context.js';
import type { SigningAlg } from '../../crypto/signing-key.js';
import type { MintedSecret } from '../../crypto/tokens.js';
import type { VerifiedProof } from '../../dpop/proof.js';
import { clientTouchDue } from '../../storage/client-rows.js';
import type { IssuanceWrites } from '../../storage/contract/issuance.js';
import type { AccessToken, Client, RefreshToken } from '../../storage/schema.js';
import { signIdToken } from '../id-token.js';
import { formatScope } from '../scopes.js';

/** What a grant works with: the store, never the database itself. */
export type GrantContext = Pick<AppContext, 'store' | 'config' | 'keys' | 'now'>;

export interface TokenOwner {
  readonly grantId: string;
  readonly clientId: string;
  readonly accountId: string;
  readonly resource: string;
}

/**
 * The DPoP keys a token set is bound to (RFC 9449 §5, §6.1): the access token's (`cnf.jkt`) and
 * the refresh token's (public clients only; null: bound to the client alone).
 */
export interface Binding {
  readonly access: string | null;
  readonly refresh: string | null;
}

export const UNBOUND: Binding = { access: null, refresh: null };

/** The token request's DPoP proof (undefined: none) and the keys its tokens are bound to. */
export interface TokenDpop {
  readonly proof: VerifiedProof | undefined;
  readonly binding: Binding;
}

export function accessTokenRow(
  ctx: Pick<AppContext, 'config'>,
  owner: TokenOwner,
  token: MintedSecret,
  scopes: readonly string[],
  now: number,
  jkt: string | null,
): AccessToken {
  return {
    token_hash: token.hash,
    grant_id: owner.grantId,
    client_id: owner.clientId,
    account_id: owner.accountId,
    scopes: formatScope(scopes),
    resource: owner.resource,
    created_at: now,
    expires_at: now + ctx.config.accessTokenTtl,
    revoked_at: null,
    jkt,
  };
}

export function refreshTokenRow(
  ctx: Pick<AppContext, 'config'>,
  owner: TokenOwner,
  token: MintedSecret,
  scopes: readonly string[],
  now: number,
  jkt: string | null,
): RefreshToken {
  return {
    token_hash: token.hash,
    grant_id: owner.grantId,
    client_id: owner.clientId,
    account_id: owner.accountId,
    scopes: formatScope(scopes),
    resource: owner.resource,
    created_at: now,
    expires_at: now + ctx.config.refreshTokenTtl,
    rotated_at: null,
    successor: null,
    revoked_at: null,
    jkt,
  };
}

/**
 * Revokes the grant of a code presented again (RFC 6749 §4.1.2) or a rotated refresh token
 * reused (RFC 9700 §4.14.2), every token it issued with it, and audits why.
 */
export async function revokeMisusedGrant(
  ctx: GrantContext,
  kind: 'code.replayed' | 'refresh.reused',
  row: { readonly grant_id: string; readonly account_id: string; readonly client_id: string },
  ip: string,
): Promise<void> {
  const now = ctx.now();
  const audit: AuditInput = {
    kind,
    accountId: row.account_id,
    clientId: row.client_id,
    ip,
    detail: { grant_id: row.grant_id },
  };
  await ctx.store.issuance.revokeGrant(row.grant_id, now, auditRow(audit, now));
  auditWritten(kind);
}

/** What a grant writes when it issues a token set, on either database. */
export interface TokenSetWrites {
  readonly access: AccessToken;
  readonly refresh: RefreshToken | undefined;
  readonly audit: AuditInput;
  readonly client: Client;
  readonly now: number;
}

/** The writes as the store's issuance operations take them, the client's last use with them when due. */
export function issuanceWrites(w: TokenSetWrites): IssuanceWrites {
  return {
    now: w.now,
    access: w.access,
    refresh: w.refresh,
    audit: auditRow(w.audit, w.now),
    touchClientId: clientTouchDue(w.client, w.now) ? w.client.id : undefined,
  };
}

export interface TokenResponseBody {
  access_token: string;
  /** RFC 9449 §5: `DPoP` when the access token is bound to a key, else `Bearer`. */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  id_token?: string;
}

/**
 * The code or refresh token row read with the client (store `clients.findWithCode`,
 * `findWithRefreshToken`), with the key it was read by; undefined row: no such row.
 */
export interface ReadWithClient<T> {
  readonly hash: string;
  readonly row: T | undefined;
}

export interface ResponseInput {
  readonly accessToken: string;
  /** The key the access token is bound to (RFC 9449 §5: token_type DPoP); null: a bearer token. */
  readonly accessJkt: string | null;
  readonly accessExpiresAt: number;
  readonly refreshToken: string | undefined;
  readonly scopes: readonly string[];
  readonly owner: TokenOwner;
  readonly authTime: number;
  readonly nonce: string | null;
  /** The client's `id_token_signed_response_alg`. */
  readonly idTokenAlg: SigningAlg;
  /** The moment the answer is computed for (one clock reading per request). */
  readonly now: number;
}

export async function tokenResponse(
  ctx: Pick<AppContext, 'config' | 'keys' | 'now'>,
  input: ResponseInput,
): Promise<TokenResponseBody> {
  const body: TokenResponseBody = {
    access_token: input.accessToken,
    token_type: input.accessJkt === null ? 'Bearer' : 'DPoP',
    expires_in: Math.max(0, input.accessExpiresAt - input.now),
    scope: formatScope(input.scopes),
  };
  if (input.refreshToken !== undefined) body.refresh_token = input.refreshToken;
  // OIDC Core §3.1.3.3: an ID token accompanies tokens whose scope includes openid.
  if (input.scopes.includes('openid')) {
    body.id_token = await signIdToken(ctx, input.now, {
      accountId: input.owner.accountId,
      clientId: input.owner.clientId,
      alg: input.idTokenAlg,
      authTime: input.authTime,
      nonce: input.nonce,
    });
  }
  return body;
}
