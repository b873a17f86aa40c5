/**
 * POST /api/oauth/revoke — token revocation (RFC 7009): authenticate the client → find the token
 * among its own → revoke → 200. Unknown tokens, and tokens of other clients, also answer 200
 * (RFC 7009 §2.2; docs/decisions.md "UserInfo, revocation, introspection"), so the endpoint reveals nothing about tokens it was not given.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { auditWritten } from '../audit/audit.js';
import type { AppContext } from '../context.js';
import { hashSecret } from '../crypto/tokens.js';
import { PATHS } from '../paths.js';
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
      // The client's lookup and the revocation in one transaction where that is cheaper (request-transaction.ts).
      const revoked = await inRequestTransaction(ctx.store, async ({ store }) => {
        const client = await authenticateClient({ store }, clientCredentials(request));
        const token = required(
          param(request.body.token),
          'token',
          'send the access or refresh token to revoke',
        );
        return store.revocation.revokeOwn({
          clientId: client.id,
          tokenHash: hashSecret(token),
          hint: param(request.body.token_type_hint),
          ip: request.ip,
          now: ctx.now(),
        });
      });
      if (revoked) auditWritten('token.revoked');
      return reply.code(200).header('cache-control', 'no-store').send();
    },
  );
}
