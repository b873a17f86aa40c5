/**
 * The refresh_token grant (RFC 6749 §6) with rotation on every use (SPEC §7, OAuth 2.1 §4.3.1).
 *
 * The successor pair is derived from the presented token and the rotation's time (deriveSecret),
 * so a repeat of the just-rotated token within REFRESH_GRACE can answer the very same pair while
 * only hashes are stored; concurrent callers that lose the rotation race compute the same pair
 * from the rotation time the winner stored. A rotated token
 * used after the window is treated as stolen: the whole grant's token family is revoked.
 */
import { recordAudit } from '../../../audit/audit.js';
import type { AppContext } from '../../../context.js';
import { deriveSecret, hashSecret, type MintedSecret } from '../../../crypto/tokens.js';
import { OAuthError } from '../../../errors.js';
import { revokeGrants } from '../../../storage/grants.repository.js';
import { findRefreshToken, markRotated } from '../../../storage/refresh-tokens.repository.js';
import type { Client, RefreshToken } from '../../../storage/schema.js';
import {
  findAccessTokenByHash,
  grantAuthTime,
  insertTokenSet,
  touchLiveGrant,
} from '../../../storage/tokens.repository.js';
import { inTransaction } from '../../../storage/transaction.js';
import { isSubset, parseScope, splitScope } from '../../scopes.js';
import {
  accessTokenRow,
  refreshTokenRow,
  type TokenOwner,
  type TokenResponseBody,
  tokenResponse,
} from '../issue.js';
import { checkResource, invalidGrant, required, type TokenParams } from '../params.js';

const REAUTHORIZE = 'send the person through the authorization endpoint again';

interface Successor {
  readonly access: MintedSecret;
  readonly refresh: MintedSecret;
}

/** The pair a rotation at `rotatedAt` (epoch seconds) issues for the presented token. */
function successorOf(presented: string, rotatedAt: number): Successor {
  const issuedAtMs = rotatedAt * 1000;
  return {
    access: deriveSecret('accessToken', presented, 'rotation:access', issuedAtMs),
    refresh: deriveSecret('refreshToken', presented, 'rotation:refresh', issuedAtMs),
  };
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

function checkToken(ctx: AppContext, row: RefreshToken, clientId: string): void {
  // RFC 6749 §6: the refresh token must have been issued to the authenticated client.
  if (row.client_id !== clientId) throw invalidGrant('the refresh token was issued to another client');
  if (row.revoked_at !== null) throw invalidGrant(`the refresh token was revoked; ${REAUTHORIZE}`);
  if (row.expires_at <= ctx.now()) throw invalidGrant(`the refresh token has expired; ${REAUTHORIZE}`);
}

async function reused(ctx: AppContext, row: RefreshToken, ip: string): Promise<OAuthError> {
  const now = ctx.now();
  await revokeGrants(ctx.db, [row.grant_id], now);
  await recordAudit(
    ctx.db,
    {
      kind: 'refresh.reused',
      accountId: row.account_id,
      clientId: row.client_id,
      ip,
      detail: { grant_id: row.grant_id },
    },
    now,
  );
  return invalidGrant(
    `the refresh token was already used; every token of this authorization is now revoked; ${REAUTHORIZE}`,
  );
}

interface Rotation {
  readonly next: Successor;
  readonly accessExpiresAt: number;
  readonly scopes: string[];
  /** The clock reading the rotation (or the repeat) was judged at. */
  readonly now: number;
  /** When the person authenticated for the grant, when already read. */
  readonly authTime?: number;
}

/** A repeat within the grace window: the pair the first rotation wrote, if it is still live. */
async function repeatOf(
  ctx: AppContext,
  row: RefreshToken,
  presented: string,
  ip: string,
): Promise<Rotation> {
  const now = ctx.now();
  if (row.rotated_at === null || now - row.rotated_at > ctx.config.refreshGrace) {
    throw await reused(ctx, row, ip);
  }
  const next = successorOf(presented, row.rotated_at);
  const [access, refresh] = await Promise.all([
    findAccessTokenByHash(ctx.db, next.access.hash),
    findRefreshToken(ctx.db, next.refresh.hash),
  ]);
  if (!access || !refresh || access.revoked_at !== null || refresh.revoked_at !== null) {
    throw invalidGrant(
      `the refresh token was already used and its successor is no longer valid; ${REAUTHORIZE}`,
    );
  }
  return { next, accessExpiresAt: access.expires_at, scopes: splitScope(access.scopes), now };
}

/** Rotation and its audit row in one transaction: one commit, and no tokens without their audit row. */
async function rotate(
  ctx: AppContext,
  row: RefreshToken,
  owner: TokenOwner,
  next: Successor,
  scopes: string[],
  ip: string,
  now: number,
) {
  const accessRow = accessTokenRow(ctx, owner, next.access, scopes, now);
  // RFC 6749 §6: a new refresh token keeps the scope of the one it replaces.
  const refreshRow = refreshTokenRow(ctx, owner, next.refresh, splitScope(row.scopes), now);
  return inTransaction(ctx.db, async (trx) => {
    if (!(await markRotated(trx, row.token_hash, now))) return 'lost' as const;
    const grant = await touchLiveGrant(trx, row.grant_id, now);
    if (!grant) return 'revoked' as const;
    await insertTokenSet(trx, accessRow, refreshRow);
    await recordAudit(
      trx,
      {
        kind: 'token.refreshed',
        accountId: row.account_id,
        clientId: owner.clientId,
        ip,
        detail: { grant_id: row.grant_id },
      },
      now,
    );
    return {
      next,
      accessExpiresAt: accessRow.expires_at,
      scopes,
      now,
      authTime: grant.auth_time,
    } satisfies Rotation;
  });
}

async function firstUse(
  ctx: AppContext,
  row: RefreshToken,
  owner: TokenOwner,
  presented: string,
  scopes: string[],
  ip: string,
): Promise<Rotation> {
  const now = ctx.now();
  const outcome = await rotate(ctx, row, owner, successorOf(presented, now), scopes, ip, now);
  if (outcome === 'revoked') throw invalidGrant(`the authorization was revoked; ${REAUTHORIZE}`);
  if (outcome === 'lost') {
    // A concurrent refresh of the same token won the race (or a revocation came first).
    const current = (await findRefreshToken(ctx.db, row.token_hash))!;
    checkToken(ctx, current, owner.clientId);
    return repeatOf(ctx, current, presented, ip);
  }
  return outcome;
}

export async function refreshTokenGrant(
  ctx: AppContext,
  client: Client,
  params: TokenParams,
  ip: string,
): Promise<TokenResponseBody> {
  const presented = required(params.refresh_token, 'refresh_token', 'send the refresh token to exchange');
  const row = await findRefreshToken(ctx.db, hashSecret(presented));
  if (!row) throw invalidGrant(`the refresh token is not known; ${REAUTHORIZE}`);
  checkToken(ctx, row, client.id);
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
      : await firstUse(ctx, row, owner, presented, scopes, ip);
  const authTime = rotation.authTime ?? (await grantAuthTime(ctx.db, row.grant_id));
  return tokenResponse(ctx, {
    accessToken: rotation.next.access.value,
    accessExpiresAt: rotation.accessExpiresAt,
    refreshToken: rotation.next.refresh.value,
    scopes: rotation.scopes,
    owner,
    authTime: authTime ?? row.created_at,
    // OIDC Core §12.2: a refreshed ID token SHOULD NOT carry a nonce.
    nonce: null,
    now: rotation.now,
  });
}
