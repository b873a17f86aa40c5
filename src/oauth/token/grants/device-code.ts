/**
 * The device_code grant (RFC 8628 §3.4–§3.5): the client polls with its device code until the
 * person has decided. One poll is one atomic step of the store (contract/device-authorizations.ts):
 * it answers authorization_pending, slow_down (and the interval is 5 s longer from then on),
 * access_denied or expired_token, or spends the approval, exactly once on any instance; then the
 * tokens are issued under a new grant, as for a redeemed authorization code.
 *
 * It runs outside the token endpoint's request transaction (src/oauth/request-transaction.ts):
 * the poll commits on its own, so a rerun of that transaction could not spend it twice, and a
 * request never holds one pooled connection while it waits for a second.
 */
import type { FastifyRequest } from 'fastify';
import { type AuditInput, auditWritten } from '../../../audit/audit.js';
import { hashSecret, mintSecret, timeOrderedId } from '../../../crypto/tokens.js';
import { OAuthError } from '../../../errors.js';
import { MAX_PARAMETER_LENGTH } from '../../../limits.js';
import { countDevicePollRefused } from '../../../ops/metrics.js';
import type { DevicePoll } from '../../../storage/contract/device-authorizations.js';
import type { Client, DeviceAuthorization } from '../../../storage/schema.js';
import { splitScope } from '../../scopes.js';
import {
  accessTokenRow,
  type GrantContext,
  issuanceWrites,
  refreshTokenRow,
  type TokenDpop,
  type TokenOwner,
  type TokenResponseBody,
  tokenResponse,
} from '../issue.js';
import { checkResource, invalidGrant, required, type TokenParams } from '../params.js';

/** The one answer for every device code this client cannot use: unknown, another client's, or spent. */
const unusableDeviceCode = (): OAuthError =>
  invalidGrant(
    'the device_code is not valid for this client: it is unknown, was already exchanged for tokens, or was issued to another client; start again at the device authorization endpoint',
  );

/** RFC 8628 §3.5's answers to a poll that gets no tokens. */
function answerOf(poll: Exclude<DevicePoll, { outcome: 'approved' }>): OAuthError {
  switch (poll.outcome) {
    case 'pending':
      return new OAuthError(
        'authorization_pending',
        `the person has not approved yet; poll again in ${poll.interval} seconds`,
      );
    case 'slow_down':
      return new OAuthError(
        'slow_down',
        `polled too soon after the last poll; wait ${poll.interval} seconds between polls from now on`,
      );
    case 'denied':
      return new OAuthError('access_denied', 'the person denied the request; stop polling');
    case 'expired':
      return new OAuthError(
        'expired_token',
        'the device_code expired before the person approved it; start again at the device authorization endpoint',
      );
    default:
      return unusableDeviceCode();
  }
}

async function issue(
  ctx: GrantContext,
  client: Client,
  authorization: DeviceAuthorization,
  ip: string,
  now: number,
  dpop: TokenDpop,
): Promise<TokenResponseBody> {
  const owner: TokenOwner = {
    grantId: timeOrderedId('grt_'),
    clientId: client.id,
    accountId: authorization.account_id!,
    resource: authorization.resource,
  };
  const scopes = splitScope(authorization.granted_scopes ?? '');
  const authTime = authorization.auth_time ?? now;
  const access = mintSecret('accessToken');
  const refresh = (JSON.parse(client.grant_types) as string[]).includes('refresh_token')
    ? mintSecret('refreshToken')
    : undefined;
  const accessRow = accessTokenRow(ctx, owner, access, scopes, now, dpop.binding.access);
  const audit: AuditInput = {
    kind: 'token.issued',
    accountId: owner.accountId,
    clientId: client.id,
    ip,
    detail: { grant_id: owner.grantId, grant_type: 'device_code' },
  };
  const writes = issuanceWrites({
    access: accessRow,
    refresh: refresh && refreshTokenRow(ctx, owner, refresh, scopes, now, dpop.binding.refresh),
    audit,
    client,
    now,
  });
  await ctx.store.issuance.issueGrant(
    {
      id: owner.grantId,
      account_id: owner.accountId,
      client_id: client.id,
      scopes: authorization.granted_scopes ?? '',
      resource: owner.resource,
      nonce: null,
      auth_time: authTime,
      created_at: now,
      last_used_at: now,
      revoked_at: null,
    },
    writes,
  );
  auditWritten(audit.kind);
  return tokenResponse(ctx, {
    accessToken: access.value,
    accessJkt: accessRow.jkt,
    accessExpiresAt: accessRow.expires_at,
    refreshToken: refresh?.value,
    scopes,
    owner,
    authTime,
    nonce: null,
    idTokenAlg: client.id_token_signed_response_alg,
    now,
  });
}

/** One poll of an authenticated client registered for the grant. */
export async function deviceCodeGrant(
  ctx: GrantContext,
  client: Client,
  params: TokenParams,
  request: Pick<FastifyRequest, 'ip'>,
  dpop: TokenDpop,
): Promise<TokenResponseBody> {
  const deviceCode = required(
    params.device_code,
    'device_code',
    'the device_code grant needs device_code and client_id',
  );
  // Longer than anything issued: no lookup (the form limit already refuses far longer values).
  if (deviceCode.length > MAX_PARAMETER_LENGTH) {
    countDevicePollRefused('unknown');
    throw unusableDeviceCode();
  }
  const now = ctx.now();
  const poll = await ctx.store.deviceAuthorizations.poll(hashSecret(deviceCode), client.id, now);
  if (poll.outcome === 'expired' || poll.outcome === 'spent' || poll.outcome === 'unknown') {
    countDevicePollRefused(poll.outcome);
  }
  if (poll.outcome !== 'approved') throw answerOf(poll);
  checkResource(params.resource, poll.authorization.resource, ctx.config.issuer);
  return issue(ctx, client, poll.authorization, request.ip, now, dpop);
}
