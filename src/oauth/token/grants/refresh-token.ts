/**
 * The refresh_token grant (RFC 6749 §6) with rotation on every use (docs/decisions.md "Refresh rotation", OAuth 2.1 §4.3.1).
 *
 * The successor pair is fresh CSPRNG output (mintSecret). So that a repeat of the just-rotated
 * token within REFRESH_GRACE, or a concurrent caller that lost the rotation race, can answer the
 * very same pair, the rotated row keeps the pair sealed under a key only the presented token
 * yields (src/crypto/successor-seal.ts), erased when the window ends. A rotated token used after
 * the window is treated as stolen: the whole grant's token family is revoked. Every token this
 * client cannot use gets one answer (unusableRefreshToken), whatever the reason.
 */
import { auditWritten } from '../../../audit/audit.js';
import { openSuccessor, sealSuccessor } from '../../../crypto/successor-seal.js';
import { hashSecret, type MintedSecret, mintSecret } from '../../../crypto/tokens.js';
import { OAuthError } from '../../../errors.js';
import type { Client, RefreshToken } from '../../../storage/schema.js';
import { checkBoundKey } from '../../dpop/token-request.js';
import { isSubset, parseScope, splitScope } from '../../scopes.js';
import {
  accessTokenRow,
  type GrantContext,
  issuanceWrites,
  type ReadWithClient,
  refreshTokenRow,
  revokeMisusedGrant,
  type TokenDpop,
  type TokenOwner,
  type TokenResponseBody,
  type TokenSetWrites,
  tokenResponse,
} from '../issue.js';
import { checkResource, required, type TokenParams, unusableRefreshToken } from '../params.js';

/** Why a rotation wrote no tokens: another request rotated the token first (or it is revoked), or the grant is revoked. */
type NoRotation = 'lost' | 'revoked';

interface Successor {
  readonly access: MintedSecret;
  readonly refresh: MintedSecret;
}

/** A new pair: fresh randomness, nothing of the presented token in it. */
function freshSuccessor(): Successor {
  return { access: mintSecret('accessToken'), refresh: mintSecret('refreshToken') };
}

/** RFC 6749 §6: the requested scope must not include any scope not originally granted. */
function requestedScopes(value: string | undefined, row: RefreshToken): string[] {
  const granted = splitScope(row.scopes);
  if (value === undefined || value === '') return granted;
  const parsed = parseScope(value);
  if ('error' in parsed) throw new OAuthError('invalid_scope', parsed.error);
  if (!isSubset(parsed.scopes, granted)) {
    throw new OAuthError(
      'invalid_scope',
      `a refresh may narrow the scope but not widen it; request a subset of "${row.scopes}" or leave scope out`,
    );
  }
  return parsed.scopes;
}

/** The token's row when this client may use it now; else the one answer for unusable tokens. */
function usable(ctx: GrantContext, row: RefreshToken | undefined, clientId: string): RefreshToken {
  // RFC 6749 §6: the refresh token must have been issued to the authenticated client.
  if (!row || row.client_id !== clientId || row.revoked_at !== null || row.expires_at <= ctx.now()) {
    throw unusableRefreshToken();
  }
  return row;
}

async function reused(ctx: GrantContext, row: RefreshToken, ip: string): Promise<OAuthError> {
  await revokeMisusedGrant(ctx, 'refresh.reused', row, ip);
  return unusableRefreshToken();
}

interface Rotation {
  readonly next: Successor;
  /** The key the successor access token is bound to (RFC 9449); null: a bearer token. */
  readonly accessJkt: string | null;
  readonly accessExpiresAt: number;
  readonly scopes: string[];
  /** The clock reading the rotation (or the repeat) was judged at. */
  readonly now: number;
  /** When the person authenticated for the grant, when already read. */
  readonly authTime?: number;
}

/**
 * Whether a repeat now is within the grace window of the rotation. This process's clock never
 * runs backwards (src/clock.ts), but another instance's may run ahead of it: a rotation stamped
 * more than the window ahead of this clock is not taken as just now either.
 */
function withinGrace(ctx: GrantContext, rotatedAt: number, now: number): boolean {
  const since = now - rotatedAt;
  return since <= ctx.config.refreshGrace && since >= -ctx.config.refreshGrace;
}

/**
 * A repeat within the grace window: the pair the first rotation sealed in the row, if it is still
 * live. The window is judged before the seal is opened: after it, the repeat is a reuse. A repeat
 * answers only the immediate successor, and only while that successor is still the live token:
 * once the successor was itself rotated, the client has moved on, and the old token presented
 * again is a reuse too (docs/decisions.md "Refresh rotation"); else a holder of only the old
 * token could walk the chain, each answer's refresh token repeated in turn within its window.
 */
async function repeatOf(
  ctx: GrantContext,
  row: RefreshToken,
  presented: string,
  ip: string,
): Promise<Rotation> {
  const now = ctx.now();
  if (row.rotated_at === null || !withinGrace(ctx, row.rotated_at, now)) {
    throw await reused(ctx, row, ip);
  }
  const pair = row.successor === null ? undefined : openSuccessor(presented, row.successor);
  if (!pair) throw unusableRefreshToken();
  const next: Successor = {
    access: { value: pair.accessToken, hash: hashSecret(pair.accessToken) },
    refresh: { value: pair.refreshToken, hash: hashSecret(pair.refreshToken) },
  };
  const [access, refresh] = await Promise.all([
    ctx.store.tokens.findAccess(next.access.hash),
    ctx.store.tokens.findRefresh(next.refresh.hash),
  ]);
  if (!access || !refresh || access.revoked_at !== null || refresh.revoked_at !== null) {
    throw unusableRefreshToken();
  }
  if (refresh.rotated_at !== null) throw await reused(ctx, row, ip);
  return {
    next,
    accessJkt: access.jkt,
    accessExpiresAt: access.expires_at,
    scopes: splitScope(access.scopes),
    now,
  };
}

/** Rotates the token and writes its successor pair and audit row, all or nothing. */
async function rotate(
  ctx: GrantContext,
  row: RefreshToken,
  owner: TokenOwner,
  client: Client,
  presented: string,
  scopes: string[],
  ip: string,
  now: number,
  dpop: TokenDpop,
): Promise<NoRotation | Rotation> {
  const next = freshSuccessor();
  const sealed = sealSuccessor(presented, {
    accessToken: next.access.value,
    refreshToken: next.refresh.value,
  });
  const accessRow = accessTokenRow(ctx, owner, next.access, scopes, now, dpop.binding.access);
  const writes: TokenSetWrites = {
    access: accessRow,
    // RFC 6749 §6: a new refresh token keeps the scope of the one it replaces.
    // RFC 9449 §5: a bound refresh token's successor stays bound to its key; a public client
    // refreshing with a proof binds the successor of an unbound one.
    refresh: refreshTokenRow(
      ctx,
      owner,
      next.refresh,
      splitScope(row.scopes),
      now,
      row.jkt ?? dpop.binding.refresh,
    ),
    audit: {
      kind: 'token.refreshed',
      accountId: row.account_id,
      clientId: owner.clientId,
      ip,
      detail: { grant_id: row.grant_id },
    },
    client,
    now,
  };
  // The grant first, then the token marked rotated once (on any instance), then the successor
  // pair when the grant is live (docs/security.md "Lock order"); a rotation lost to another
  // request has still used the grant (it answers that request's pair).
  const outcome = await ctx.store.issuance.rotateRefreshToken(
    row.token_hash,
    row.grant_id,
    sealed,
    issuanceWrites(writes),
  );
  if (!outcome.spent) return 'lost';
  if (outcome.authTime === undefined) return 'revoked';
  auditWritten(writes.audit.kind);
  return {
    next,
    accessJkt: accessRow.jkt,
    accessExpiresAt: accessRow.expires_at,
    scopes,
    now,
    authTime: outcome.authTime,
  };
}

async function firstUse(
  ctx: GrantContext,
  row: RefreshToken,
  owner: TokenOwner,
  client: Client,
  presented: string,
  scopes: string[],
  ip: string,
  dpop: TokenDpop,
): Promise<Rotation> {
  const now = ctx.now();
  const outcome = await rotate(ctx, row, owner, client, presented, scopes, ip, now, dpop);
  if (outcome === 'revoked') throw unusableRefreshToken();
  if (outcome === 'lost') {
    // A concurrent refresh of the same token won the race (or a revocation came first).
    const current = usable(ctx, await ctx.store.tokens.findRefresh(row.token_hash), owner.clientId);
    return repeatOf(ctx, current, presented, ip);
  }
  return outcome;
}

export async function refreshTokenGrant(
  ctx: GrantContext,
  client: Client,
  params: TokenParams,
  ip: string,
  dpop: TokenDpop,
  read?: ReadWithClient<RefreshToken>,
): Promise<TokenResponseBody> {
  const presented = required(params.refresh_token, 'refresh_token', 'send the refresh token to exchange');
  const tokenHash = hashSecret(presented);
  // PostgreSQL: the row was read with the client, in the same statement.
  const row = usable(
    ctx,
    read?.hash === tokenHash ? read.row : await ctx.store.tokens.findRefresh(tokenHash),
    client.id,
  );
  // RFC 9449 §5: a public client's bound refresh token is used only with a proof of its key;
  // judged before anything is spent or revoked, so a thief's attempt changes nothing.
  checkBoundKey(row.jkt, dpop.proof, 'this refresh token');
  const scopes = requestedScopes(params.scope, row);
  checkResource(params.resource, row.resource, ctx.config.issuer);
  const owner: TokenOwner = {
    grantId: row.grant_id,
    clientId: client.id,
    accountId: row.account_id,
    resource: row.resource,
  };
  const rotation =
    row.rotated_at !== null
      ? await repeatOf(ctx, row, presented, ip)
      : await firstUse(ctx, row, owner, client, presented, scopes, ip, dpop);
  const authTime = rotation.authTime ?? (await ctx.store.tokens.grantAuthTime(row.grant_id));
  const body = await tokenResponse(ctx, {
    accessToken: rotation.next.access.value,
    accessJkt: rotation.accessJkt,
    accessExpiresAt: rotation.accessExpiresAt,
    refreshToken: rotation.next.refresh.value,
    scopes: rotation.scopes,
    owner,
    authTime: authTime ?? row.created_at,
    // OIDC Core §12.2: a refreshed ID token SHOULD NOT carry a nonce.
    nonce: null,
    idTokenAlg: client.id_token_signed_response_alg,
    now: rotation.now,
  });
  return body;
}
