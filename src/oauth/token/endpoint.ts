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
import type { Client } from '../../storage/schema.js';
import { authenticateClient } from '../client-auth.js';
import { DEVICE_CODE_GRANT } from '../client-metadata.js';
import { bindingFor, tokenAnswerHeaders, tokenRequestProof } from '../dpop/token-request.js';
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
  token_type: Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')], {
    description:
      'DPoP when the request carried a DPoP proof (RFC 9449 §5): the access token is bound to its key',
  }),
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
      // RFC 9449 §5: the proof is checked and its jti recorded before the grant runs (and outside
      // its transaction: the record commits whatever the grant answers).
      // A refused proof counts against the caller's address as a failed client authentication
      // does (docs/security.md "Rate limits"), so a flood of bad proofs is limited too.
      const proof = await tokenRequestProof(ctx, request).catch((error: unknown) => {
        limits.token(request, undefined);
        throw error;
      });
      // RFC 8628: polled outside the request transaction (grants/device-code.ts says why).
      if (grantType === DEVICE_CODE_GRANT) {
        const client = await authenticateClient(ctx, clientCredentials(request), (proven) =>
          limits.token(request, proven),
        );
        checkClientGrant(client, grantType);
        const dpop = { proof, binding: bindingFor(client, proof) };
        const issued = await deviceCodeGrant(ctx, client, params, request, dpop);
        return reply
          .headers(NO_STORE)
          .headers(await tokenAnswerHeaders(ctx))
          .send(issued);
      }
      // One transaction from the client's lookup to the last write where the store makes that
      // cheaper (request-transaction.ts).
      const body = await inRequestTransaction(ctx.store, async ({ store }): Promise<TokenResponseBody> => {
        // The code or refresh token is read with the client (one statement where that saves a round trip).
        const joined = joinedRead(store, grantType, params);
        // RATE_LIMIT_TOKEN per confidential client that proved its secret, else per client IP
        // (docs/security.md "Rate limits"): counted once client authentication is judged, before
        // the grant runs, so a stranger naming a client_id spends only its own address's allowance.
        const client = await authenticateClient(
          { store },
          clientCredentials(request),
          (proven) => limits.token(request, proven),
          joined.read,
        );
        checkClientGrant(client, grantType);
        const dpop = { proof, binding: bindingFor(client, proof) };
        // The context itself when the scope is the store's own (SQLite): nothing new per request.
        const grantCtx = store === ctx.store ? ctx : { ...ctx, store };
        return grantType === 'authorization_code'
          ? authorizationCodeGrant(grantCtx, client, params, request.ip, dpop, joined.code())
          : refreshTokenGrant(grantCtx, client, params, request.ip, dpop, joined.refreshToken());
      });
      return reply
        .headers(NO_STORE)
        .headers(await tokenAnswerHeaders(ctx))
        .send(body);
    },
  );
}
