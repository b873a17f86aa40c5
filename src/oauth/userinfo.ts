/**
 * GET/POST /api/oauth/userinfo (OIDC Core §5.3): the claims of the person an access token acts
 * for, by granted scope (§5.4): `sub` always; `profile` → name, preferred_username, locale,
 * updated_at; `email` → email, email_verified. Needs `openid`.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { hashSecret } from '../crypto/tokens.js';
import { OAuthError } from '../errors.js';
import { PATHS } from '../paths.js';
import {
  acceptToken,
  bearerChallenge,
  insufficientScope,
  invalidToken,
  readAuthorizationHeader,
} from '../resource-server/bearer.js';
import {
  inDpopScheme,
  isDpopAuthorization,
  judgeDpopRequest,
  readDpopAuthorization,
  refuseBoundAsBearer,
} from '../resource-server/dpop.js';
import type { AccountClaims, BearerToken } from '../storage/contract/bearer-tokens.js';
import { splitScope } from './scopes.js';
import { NO_STORE, OAuthErrorBody } from './wire-schemas.js';

const UserInfo = Type.Object({
  sub: Type.String({ description: 'The person’s stable identifier' }),
  name: Type.Optional(Type.String({ description: 'profile scope' })),
  preferred_username: Type.Optional(
    Type.String({ description: 'profile scope: the local part of the email' }),
  ),
  locale: Type.Optional(Type.String({ description: 'profile scope' })),
  updated_at: Type.Optional(Type.Integer({ description: 'profile scope: epoch seconds' })),
  email: Type.Optional(Type.String({ description: 'email scope' })),
  email_verified: Type.Optional(Type.Boolean({ description: 'email scope' })),
});

export type UserInfoClaims = Record<string, string | number | boolean>;

/** Claims by scope (OIDC Core §5.4); pure. */
export function claimsFor(account: AccountClaims, scopes: readonly string[]): UserInfoClaims {
  const claims: UserInfoClaims = { sub: account.id };
  if (scopes.includes('profile')) {
    claims.name = account.name;
    claims.preferred_username = account.email.split('@')[0]!;
    claims.locale = account.locale;
    claims.updated_at = account.updated_at;
  }
  if (scopes.includes('email')) {
    claims.email = account.email;
    // Accounts are created by operators; nobody proved control of the address by a link.
    claims.email_verified = false;
  }
  return claims;
}

/**
 * The token of a UserInfo request, judged, and the account's claims where the store reads them
 * with it in one statement (the account the token was judged with); 401 with a resource-metadata challenge
 * otherwise.
 */
async function bearerToken(
  ctx: AppContext,
  authorization: string | string[] | undefined,
): Promise<{ token: BearerToken; account?: AccountClaims | undefined }> {
  const { issuer } = ctx.config;
  const header = readAuthorizationHeader(authorization);
  if (header.kind === 'none') {
    // RFC 6750 §3.1: no error code in the challenge when no credentials were sent (docs/decisions.md "UserInfo, revocation, introspection").
    throw new OAuthError(
      'invalid_token',
      'UserInfo needs an access token with the openid scope; send "Authorization: Bearer <access token>"',
      401,
      { 'www-authenticate': bearerChallenge(issuer) },
    );
  }
  if (header.kind === 'malformed') {
    throw invalidToken(issuer, 'the Authorization header must be "Bearer <access token>"');
  }
  const found = await ctx.store.bearerTokens.findWithClaims(hashSecret(header.token));
  return { token: acceptToken(ctx, found.token), account: found.account };
}

export async function userinfoRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.decorateRequest('userinfoToken', null);
  app.decorateRequest('userinfoAccount', null);
  app.route({
    method: ['GET', 'POST'],
    url: PATHS.userinfo,
    schema: {
      tags: ['oauth'],
      summary: 'Claims about the signed-in person (OpenID Connect UserInfo)',
      security: [
        { oauth2: ['openid'] },
        { oauth2: ['openid', 'profile'] },
        { oauth2: ['openid', 'email'] },
        { dpop: ['openid'] },
      ],
      response: { 200: UserInfo, 401: OAuthErrorBody, 403: OAuthErrorBody },
    },
    // The token is judged before any body is read (docs/api.md "Calling it": 401/403 before 400).
    onRequest: async (request) => {
      const { authorization } = request.headers;
      // RFC 9449 §7: a DPoP-bound token with its proof (resource-server/dpop.ts).
      const dpop = isDpopAuthorization(authorization);
      const { token, account } = dpop
        ? {
            token: await judgeDpopRequest(
              ctx,
              request,
              readDpopAuthorization(ctx.config.issuer, authorization),
              async (hash) => ctx.store.bearerTokens.find(hash),
            ),
            account: undefined,
          }
        : await bearerToken(ctx, authorization);
      if (!dpop) refuseBoundAsBearer(ctx.config.issuer, token);
      const scopes = splitScope(token.scopes);
      if (!scopes.includes('openid')) {
        const refused = insufficientScope(ctx.config.issuer, 'openid');
        throw dpop ? inDpopScheme(refused) : refused;
      }
      request.userinfoToken = token;
      request.userinfoAccount = account ?? null;
    },
    handler: async (request, reply) => {
      const token = request.userinfoToken!;
      const account = request.userinfoAccount ?? (await ctx.store.accounts.findById(token.account_id));
      if (!account)
        throw invalidToken(ctx.config.issuer, 'the account this access token acts for no longer exists');
      return reply.headers(NO_STORE).send(claimsFor(account, splitScope(token.scopes)));
    },
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    userinfoToken: BearerToken | null;
    /** PostgreSQL: the account's claims, read with the token (null: read them in the handler). */
    userinfoAccount: AccountClaims | null;
  }
}
