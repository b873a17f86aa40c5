/**
 * POST /api/oauth/revoke — token revocation (RFC 7009): authenticate the client → find the token
 * among its own → revoke → 200. Unknown tokens, and tokens of other clients, also answer 200
 * (RFC 7009 §2.2; docs/decisions.md "UserInfo, revocation, introspection"), so the endpoint reveals nothing about tokens it was not given.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { type AuditInput, auditWritten, recordAudit } from '../audit/audit.js';
import type { AppContext } from '../context.js';
import { hashSecret } from '../crypto/tokens.js';
import { PATHS } from '../paths.js';
import { dialectOf } from '../storage/dialect.js';
import { revokeGrantsWithin } from '../storage/grants.repository.js';
import { findRefreshToken } from '../storage/refresh-tokens.repository.js';
import { revokeAccessTokenWithAudit } from '../storage/revocation.repository.js';
import type { Client, Database } from '../storage/schema.js';
import { revokeAccessToken } from '../storage/tokens.repository.js';
import { inTransaction } from '../storage/transaction.js';
import { authenticateClient } from './client-auth.js';
import { clientCredentials, param, requireForm } from './form-request.js';
import { inRequestTransaction } from './request-transaction.js';
import { required } from './token/params.js';
import { CLIENT_AUTH_SECURITY, OAuthErrorBody } from './wire-schemas.js';

export const TokenLookupBody = Type.Object(
  {
    token: Type.String({ description: 'The access or refresh token' }),
    token_type_hint: Type.Optional(
      Type.String({ description: '"access_token" or "refresh_token" (optional)' }),
    ),
    client_id: Type.Optional(
      Type.String({
        description: 'The client identifier (optional with HTTP Basic, where it must be the same)',
      }),
    ),
    client_secret: Type.Optional(
      Type.String({
        description: 'Confidential clients using client_secret_post (never together with HTTP Basic)',
      }),
    ),
  },
  { additionalProperties: true },
);

type Revoked =
  | {
      kind: 'access' | 'refresh';
      grantId: string;
      accountId: string;
      /** Its audit row was written with it (PostgreSQL, one statement). */
      audited: boolean;
    }
  | undefined;

/** The audit row of a revocation (docs/security.md "Audit trail"). */
const revocationAudit = (
  client: Client,
  ip: string,
  kind: 'access' | 'refresh',
  grantId: string,
  accountId: string,
) =>
  ({
    kind: 'token.revoked',
    accountId,
    clientId: client.id,
    ip,
    detail: { token_type: kind, grant_id: grantId },
  }) satisfies AuditInput;

/**
 * Revokes one access token of this client. PostgreSQL: with its audit row, in one statement
 * (the detail written there is the one revocationAudit gives, grant_id last).
 */
async function revokeAccess(
  trx: Transaction<Database>,
  client: Client,
  hash: string,
  ip: string,
  now: number,
): Promise<Revoked> {
  if (dialectOf<Database>(trx) !== 'postgres') {
    const row = await revokeAccessToken(trx, hash, client.id, now);
    return row && { kind: 'access', grantId: row.grant_id, accountId: row.account_id, audited: false };
  }
  const row = await revokeAccessTokenWithAudit(trx, hash, client.id, now, {
    at: now,
    kind: 'token.revoked',
    client_id: client.id,
    ip,
    // revocationAudit's detail but for grant_id, which the statement appends from the token row.
    detail: JSON.stringify({ token_type: 'access' }),
  });
  if (!row) return undefined;
  auditWritten('token.revoked');
  return { kind: 'access', grantId: row.grant_id, accountId: row.account_id, audited: true };
}

/**
 * Revokes a refresh token's whole grant (docs/decisions.md "UserInfo, revocation, introspection": its access tokens too) or one access token.
 * The hint only orders the search (RFC 7009 §2.1).
 */
async function revokeIn(
  trx: Transaction<Database>,
  client: Client,
  hash: string,
  hint: string | undefined,
  ip: string,
  now: number,
): Promise<Revoked> {
  const tryRefresh = async (): Promise<Revoked> => {
    const row = await findRefreshToken(trx, hash);
    if (!row || row.client_id !== client.id) return undefined;
    await revokeGrantsWithin(trx, [row.grant_id], now);
    return { kind: 'refresh', grantId: row.grant_id, accountId: row.account_id, audited: false };
  };
  const tryAccess = () => revokeAccess(trx, client, hash, ip, now);
  const order = hint === 'refresh_token' ? [tryRefresh, tryAccess] : [tryAccess, tryRefresh];
  for (const attempt of order) {
    const revoked = await attempt();
    if (revoked) return revoked;
  }
  return undefined;
}

/** The revocation and its audit row commit together (one commit per request). */
async function revokeOwnToken(
  ctx: AppContext,
  client: Client,
  token: string,
  hint: string | undefined,
  ip: string,
): Promise<void> {
  const hash = hashSecret(token);
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const revoked = await revokeIn(trx, client, hash, hint, ip, now);
    if (!revoked || revoked.audited) return;
    await recordAudit(
      trx,
      revocationAudit(client, ip, revoked.kind, revoked.grantId, revoked.accountId),
      now,
    );
  });
}

export async function revokeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PATHS.revocation,
    {
      config: { errorStyle: 'oauth-form' },
      preValidation: requireForm,
      schema: {
        tags: ['oauth'],
        summary:
          'Revoke an access or refresh token (RFC 7009); revoking a refresh token ends its authorization',
        security: CLIENT_AUTH_SECURITY,
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenLookupBody,
        response: {
          200: { description: 'Revoked, or not a token of this client (the body is empty)', type: 'null' },
          400: OAuthErrorBody,
          401: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      // PostgreSQL: the client's lookup and the revocation in one transaction (request-transaction.ts).
      await inRequestTransaction(ctx.db, async (db) => {
        const client = await authenticateClient({ db }, clientCredentials(request));
        const token = required(
          param(request.body.token),
          'token',
          'send the access or refresh token to revoke',
        );
        await revokeOwnToken(
          db === ctx.db ? ctx : { ...ctx, db },
          client,
          token,
          param(request.body.token_type_hint),
          request.ip,
        );
      });
      return reply.code(200).header('cache-control', 'no-store').send();
    },
  );
}
