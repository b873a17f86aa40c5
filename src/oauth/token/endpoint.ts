/**
 * POST /api/oauth/token (RFC 6749 §3.2): parse the form → authenticate the client → run the
 * grant → answer the tokens with `Cache-Control: no-store` (§5.1).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { OAuthError } from '../../errors.js';
import { PATHS } from '../../paths.js';
import type { EndpointLimits } from '../../rate-limit/endpoint-limits.js';
import { touchClient } from '../../storage/clients.repository.js';
import { dialectOf } from '../../storage/dialect.js';
import type { Client } from '../../storage/schema.js';
import { authenticateClient } from '../client-auth.js';
import { DEVICE_CODE_GRANT } from '../client-metadata.js';
import { clientCredentials, param, requireForm } from '../form-request.js';
import { inRequestTransaction } from '../request-transaction.js';
import { CLIENT_AUTH_SECURITY, NO_STORE, OAuthErrorBody } from '../wire-schemas.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { deviceCodeGrant } from './grants/device-code.js';
import { refreshTokenGrant } from './grants/refresh-token.js';
import type { TokenResponseBody } from './issue.js';
import { type GrantType, joinedRead } from './joined-read.js';
import { TokenRequest } from './params.js';

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.Optional(Type.String()),
  scope: Type.String(),
  id_token: Type.Optional(
    Type.String({
      description:
        "JWT signed with the client's id_token_signed_response_alg (RS256 by default), when openid was granted",
    }),
  ),
});

function grantOf(value: string | undefined): GrantType | typeof DEVICE_CODE_GRANT {
  if (value === undefined) {
    throw new OAuthError(
      'invalid_request',
      'grant_type is missing; send "authorization_code" or "refresh_token"',
    );
  }
  if (value !== 'authorization_code' && value !== 'refresh_token' && value !== DEVICE_CODE_GRANT) {
    throw new OAuthError(
      'unsupported_grant_type',
      `grant_type ${JSON.stringify(value)} is not supported; send "authorization_code", "refresh_token" or "${DEVICE_CODE_GRANT}"`,
    );
  }
  return value;
}

function checkClientGrant(client: Client, grantType: string): void {
  if (!(JSON.parse(client.grant_types) as string[]).includes(grantType)) {
    throw new OAuthError('unauthorized_client', `this client is not registered for the ${grantType} grant`);
  }
}

export async function tokenRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  limits: Pick<EndpointLimits, 'token'>,
): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PATHS.token,
    {
      config: { errorStyle: 'oauth-form' },
      preValidation: requireForm,
      schema: {
        tags: ['oauth'],
        summary: 'Exchange an authorization code or a refresh token for tokens',
        security: CLIENT_AUTH_SECURITY,
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequest,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const params = request.body;
      const grantType = grantOf(param(params.grant_type));
      // RFC 8628: polled outside the request transaction (grants/device-code.ts says why).
      if (grantType === DEVICE_CODE_GRANT) {
        const client = await authenticateClient({ db: ctx.db }, clientCredentials(request), (proven) =>
          limits.token(request, proven),
        );
        checkClientGrant(client, grantType);
        const issued = await deviceCodeGrant(ctx, client, params, request);
        await touchClient(ctx.db, client, ctx.now());
        return reply.headers(NO_STORE).send(issued.body);
      }
      // PostgreSQL: one transaction from the client's lookup to the last write (request-transaction.ts).
      const body = await inRequestTransaction(ctx.db, async (db): Promise<TokenResponseBody> => {
        // PostgreSQL: the code or refresh token is read with the client, in one statement.
        const joined = dialectOf(db) === 'postgres' ? joinedRead(db, grantType, params) : undefined;
        // RATE_LIMIT_TOKEN per confidential client that proved its secret, else per client IP
        // (docs/security.md "Rate limits"): counted once client authentication is judged, before
        // the grant runs, so a stranger naming a client_id spends only its own address's allowance.
        const client = await authenticateClient(
          { db },
          clientCredentials(request),
          (proven) => limits.token(request, proven),
          joined?.read,
        );
        checkClientGrant(client, grantType);
        // SQLite: the context itself (db is ctx.db), nothing new per request.
        const grantCtx = db === ctx.db ? ctx : { ...ctx, db };
        const issued =
          grantType === 'authorization_code'
            ? await authorizationCodeGrant(grantCtx, client, params, request.ip, joined?.code())
            : await refreshTokenGrant(grantCtx, client, params, request.ip, joined?.refreshToken());
        // PostgreSQL: the grant's one write statement recorded it already.
        if (!issued.clientUseRecorded) await touchClient(db, client, ctx.now());
        return issued.body;
      });
      return reply.headers(NO_STORE).send(body);
    },
  );
}
