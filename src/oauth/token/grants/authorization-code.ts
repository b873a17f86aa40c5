/**
 * The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6): a code is redeemed once, by
 * the client it was issued to, with the redirect URI and the PKCE verifier of its request. Every
 * code this client cannot use gets one answer (unusableCode), whatever the reason.
 */
import { auditWritten, recordAudit } from '../../../audit/audit.js';
import type { AppContext } from '../../../context.js';
import { hashSecret, mintSecret } from '../../../crypto/tokens.js';
import type { OAuthError } from '../../../errors.js';
import { consumeCode, findCode } from '../../../storage/codes.repository.js';
import { dialectOf } from '../../../storage/dialect.js';
import { revokeGrants } from '../../../storage/grants.repository.js';
import { redeemCodeAndIssue } from '../../../storage/issuance-statements.repository.js';
import type { AuthorizationCode, Client } from '../../../storage/schema.js';
import { insertTokenSet, touchLiveGrant } from '../../../storage/tokens.repository.js';
import { inTransaction } from '../../../storage/transaction.js';
import { checkBoundKey } from '../../dpop/token-request.js';
import { codeVerifierProblem, verifyS256 } from '../../pkce.js';
import { splitScope } from '../../scopes.js';
import {
  accessTokenRow,
  type Issued,
  issuanceWrites,
  type ReadWithClient,
  refreshTokenRow,
  type TokenDpop,
  type TokenOwner,
  type TokenSetWrites,
  tokenResponse,
} from '../issue.js';
import { checkResource, invalidGrant, required, type TokenParams, unusableCode } from '../params.js';

/**
 * Every check that does not spend the code: a failed attempt leaves it to its rightful client.
 * Whether the code is this client's and unexpired is judged before anything else about it.
 */
function checkCode(ctx: AppContext, code: AuthorizationCode, params: TokenParams, dpop: TokenDpop): void {
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
async function replayed(ctx: AppContext, code: AuthorizationCode, ip: string): Promise<OAuthError> {
  const now = ctx.now();
  await revokeGrants(ctx.db, [code.grant_id], now);
  await recordAudit(
    ctx.db,
    {
      kind: 'code.replayed',
      accountId: code.account_id,
      clientId: code.client_id,
      ip,
      detail: { grant_id: code.grant_id },
    },
    now,
  );
  return unusableCode();
}

/** How the redemption's writes ended: the code was used before, the grant is revoked, or tokens were written. */
type Redemption = 'replayed' | 'revoked' | 'issued';

interface RedemptionWrites extends TokenSetWrites {
  readonly codeHash: string;
  readonly grantId: string;
}

/**
 * SQLite: one transaction, statement by statement: the grant first, as every write to a grant's
 * rows (docs/security.md "Lock order"), then consume the code, then write the tokens when the
 * grant was live. A replay waits for this transaction (the database's write lock), then revokes
 * what was written here.
 */
function redeemInSteps(ctx: AppContext, w: RedemptionWrites): Promise<Redemption> {
  return inTransaction(ctx.db, async (trx) => {
    const live = await touchLiveGrant(trx, w.grantId, w.now);
    if (!(await consumeCode(trx, w.codeHash, w.now))) return 'replayed' as const;
    if (!live) return 'revoked' as const;
    await insertTokenSet(trx, w.access, w.refresh);
    // In the same transaction: one commit, and no tokens without their audit row.
    await recordAudit(trx, w.audit, w.now);
    return 'issued' as const;
  });
}

/**
 * PostgreSQL: the same writes, with the same conditions, as one statement of data-modifying CTEs
 * (src/storage/issuance-statements.repository.ts), the client's last use with them. A code
 * consumed before (or by a concurrent request, on any instance: the row lock decides) spends
 * nothing and writes nothing: 'replayed', as consumeCode answered.
 */
async function redeemInOneStatement(ctx: AppContext, w: RedemptionWrites): Promise<Redemption> {
  const outcome = await redeemCodeAndIssue(ctx.db, w.codeHash, w.grantId, issuanceWrites(w));
  if (!outcome.spent) return 'replayed';
  if (outcome.authTime === undefined) return 'revoked';
  auditWritten(w.audit.kind);
  return 'issued';
}

export async function authorizationCodeGrant(
  ctx: AppContext,
  client: Client,
  params: TokenParams,
  ip: string,
  dpop: TokenDpop,
  read?: ReadWithClient<AuthorizationCode>,
): Promise<Issued> {
  const hint = 'the authorization_code grant needs code, redirect_uri, client_id and code_verifier';
  const codeValue = required(params.code, 'code', hint);
  required(params.redirect_uri, 'redirect_uri', hint);
  required(params.code_verifier, 'code_verifier', hint);
  const codeHash = hashSecret(codeValue);
  // PostgreSQL: the row was read with the client, in the same statement.
  const code = read?.hash === codeHash ? read.row : await findCode(ctx.db, codeHash);
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
  const oneStatement = dialectOf(ctx.db) === 'postgres';
  const writes: RedemptionWrites = {
    codeHash,
    grantId: code.grant_id,
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
  const outcome = oneStatement ? await redeemInOneStatement(ctx, writes) : await redeemInSteps(ctx, writes);
  if (outcome === 'replayed') throw await replayed(ctx, code, ip);
  if (outcome === 'revoked') throw unusableCode();

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
  return { body, clientUseRecorded: oneStatement };
}
