/**
 * The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6): a code is redeemed once, by
 * the client it was issued to, with the redirect URI and the PKCE verifier of its request. Every
 * code this client cannot use gets one answer (unusableCode), whatever the reason.
 */
import { auditWritten } from '../../../audit/audit.js';
import { hashSecret, mintSecret } from '../../../crypto/tokens.js';
import type { OAuthError } from '../../../errors.js';
import type { AuthorizationCode, Client } from '../../../storage/schema.js';
import { checkBoundKey } from '../../dpop/token-request.js';
import { codeVerifierProblem, verifyS256 } from '../../pkce.js';
import { splitScope } from '../../scopes.js';
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
import { checkResource, invalidGrant, required, type TokenParams, unusableCode } from '../params.js';

/**
 * Every check that does not spend the code: a failed attempt leaves it to its rightful client.
 * Whether the code is this client's and unexpired is judged before anything else about it.
 */
function checkCode(ctx: GrantContext, code: AuthorizationCode, params: TokenParams, dpop: TokenDpop): void {
  if (code.expires_at <= ctx.now()) throw unusableCode();
  // RFC 9449 §10: a code requested with dpop_jkt is redeemed only with a proof of that key.
  checkBoundKey(code.jkt, dpop.proof, 'this code (its authorization request sent dpop_jkt)');
  // RFC 6749 §4.1.3: redirect_uri must be identical to the authorization request's.
  if (params.redirect_uri !== code.redirect_uri) {
    throw invalidGrant(
      'redirect_uri does not match the one of the authorization request; send the same value',
    );
  }
  // RFC 7636 §4.6: a verifier that does not hash to the challenge is invalid_grant; one that
  // breaks the §4.1 syntax is told what is wrong with it (it says nothing about the code).
  if (!verifyS256(params.code_verifier!, code.code_challenge)) {
    throw invalidGrant(
      codeVerifierProblem(params.code_verifier!) ??
        'code_verifier does not match the code_challenge of the authorization request',
    );
  }
  checkResource(params.resource, code.resource, ctx.config.issuer);
}

/** RFC 6749 §4.1.2: a code used twice is refused and every token issued from it is revoked. */
async function replayed(ctx: GrantContext, code: AuthorizationCode, ip: string): Promise<OAuthError> {
  await revokeMisusedGrant(ctx, 'code.replayed', code, ip);
  return unusableCode();
}

export async function authorizationCodeGrant(
  ctx: GrantContext,
  client: Client,
  params: TokenParams,
  ip: string,
  dpop: TokenDpop,
  read?: ReadWithClient<AuthorizationCode>,
): Promise<TokenResponseBody> {
  const hint = 'the authorization_code grant needs code, redirect_uri, client_id and code_verifier';
  const codeValue = required(params.code, 'code', hint);
  required(params.redirect_uri, 'redirect_uri', hint);
  required(params.code_verifier, 'code_verifier', hint);
  const codeHash = hashSecret(codeValue);
  // PostgreSQL: the row was read with the client, in the same statement.
  const code = read?.hash === codeHash ? read.row : await ctx.store.tokens.findCode(codeHash);
  // RFC 6749 §4.1.3: the code must have been issued to the authenticated (or identified) client;
  // another client's code is answered like an unknown one and changes nothing.
  if (!code || code.client_id !== client.id) throw unusableCode();
  if (code.consumed_at !== null) throw await replayed(ctx, code, ip);
  checkCode(ctx, code, params, dpop);

  const now = ctx.now();
  const owner: TokenOwner = {
    grantId: code.grant_id,
    clientId: client.id,
    accountId: code.account_id,
    resource: code.resource,
  };
  const scopes = splitScope(code.scopes);
  const access = mintSecret('accessToken');
  const refresh = (JSON.parse(client.grant_types) as string[]).includes('refresh_token')
    ? mintSecret('refreshToken')
    : undefined;
  const accessRow = accessTokenRow(ctx, owner, access, scopes, now, dpop.binding.access);
  const writes: TokenSetWrites = {
    access: accessRow,
    refresh: refresh && refreshTokenRow(ctx, owner, refresh, scopes, now, dpop.binding.refresh),
    audit: {
      kind: 'token.issued',
      accountId: code.account_id,
      clientId: client.id,
      ip,
      detail: { grant_id: code.grant_id, grant_type: 'authorization_code' },
    },
    client,
    now,
  };
  // The grant first, then the code consumed once (on any instance), then the tokens when the
  // grant is live (docs/security.md "Lock order"). A code consumed first by another request
  // spends and writes nothing: a replay.
  const outcome = await ctx.store.issuance.redeemCode(codeHash, code.grant_id, issuanceWrites(writes));
  if (!outcome.spent) throw await replayed(ctx, code, ip);
  if (outcome.authTime === undefined) throw unusableCode();
  auditWritten(writes.audit.kind);

  const body = await tokenResponse(ctx, {
    accessToken: access.value,
    accessJkt: accessRow.jkt,
    accessExpiresAt: accessRow.expires_at,
    refreshToken: refresh?.value,
    scopes,
    owner,
    authTime: code.auth_time,
    nonce: code.nonce,
    idTokenAlg: client.id_token_signed_response_alg,
    now,
  });
  return body;
}
