/**
 * POST /api/oauth/introspect — token introspection (RFC 7662): a client learns about the tokens
 * issued to it (public clients identify with client_id, confidential ones authenticate with their
 * secret). Anything else — unknown, expired, revoked, rotated, another client's — is
 * `{"active": false}` (§2.2), so the answer reveals nothing about tokens of others.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { hashSecret } from '../crypto/tokens.js';
import { PATHS } from '../paths.js';
import type { AccessTokenWithAccount, BearerToken } from '../storage/contract/bearer-tokens.js';
import type { Client, RefreshToken } from '../storage/schema.js';
import { authenticateClient } from './client-auth.js';
import { clientCredentials, param, requireForm } from './form-request.js';
import { TokenLookupBody } from './revoke.js';
import { required } from './token/params.js';
import { CLIENT_AUTH_SECURITY, NO_STORE, OAuthErrorBody } from './wire-schemas.js';

const IntrospectionResponse = Type.Object({
  active: Type.Boolean(),
  scope: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  sub: Type.Optional(Type.String({ description: 'The person the token acts for' })),
  aud: Type.Optional(Type.String({ description: 'The resource the token is bound to (RFC 8707)' })),
  iss: Type.Optional(Type.String()),
  exp: Type.Optional(Type.Integer()),
  iat: Type.Optional(Type.Integer()),
  token_type: Type.Optional(
    Type.String({
      description:
        '"Bearer" or "DPoP" (an access token, RFC 9449 §6.2: DPoP when bound to a key) or "refresh_token"',
    }),
  ),
  cnf: Type.Optional(
    Type.Object(
      { jkt: Type.String({ description: 'SHA-256 JWK thumbprint (RFC 7638) of the DPoP key' }) },
      { description: 'RFC 9449 §6.2: the key the token is bound to' },
    ),
  ),
});

export type Introspection =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      sub: string;
      aud: string;
      iss: string;
      exp: number;
      iat: number;
      token_type: 'Bearer' | 'DPoP' | 'refresh_token';
      cnf?: { jkt: string };
    };

const INACTIVE: Introspection = { active: false };

/** Whether a token row is live for this client at `now` (pure). */
export function isLive(row: BearerToken | RefreshToken, clientId: string, now: number): boolean {
  if (row.client_id !== clientId || row.revoked_at !== null || row.expires_at <= now) return false;
  // A rotated refresh token has been replaced by its successor (a repeat inside the grace window
  // still answers that successor, but the token itself no longer stands for the grant).
  return !('rotated_at' in row) || row.rotated_at === null;
}

/** Not read with the client: lookup reads the access token itself. */
const NOT_READ = Symbol('not read');
type AccessRead = AccessTokenWithAccount | undefined | typeof NOT_READ;

async function lookup(ctx: AppContext, token: string, hint: string | undefined, read: AccessRead) {
  const hash = hashSecret(token);
  // An access token comes with its account's disabled flag (one query, as for bearer requests).
  const access = async () => {
    const row = read !== NOT_READ ? read : await ctx.store.bearerTokens.find(hash);
    return row && { row, tokenType: 'Bearer' as const, accountDisabled: row.account_disabled };
  };
  const refresh = async () => {
    const row = await ctx.store.tokens.findRefresh(hash);
    return row && { row, tokenType: 'refresh_token' as const, accountDisabled: undefined };
  };
  // RFC 7662 §2.1: the hint only orders the search.
  return hint === 'refresh_token'
    ? ((await refresh()) ?? (await access()))
    : ((await access()) ?? (await refresh()));
}

async function introspect(
  ctx: AppContext,
  client: Client,
  token: string,
  hint: string | undefined,
  read: AccessRead,
): Promise<Introspection> {
  const found = await lookup(ctx, token, hint, read);
  const now = ctx.now();
  if (!found || !isLive(found.row, client.id, now)) return INACTIVE;
  const disabled =
    found.accountDisabled !== undefined
      ? found.accountDisabled
      : (await ctx.store.accounts.findById(found.row.account_id))?.disabled;
  if (disabled !== 0) return INACTIVE;
  return {
    active: true,
    scope: found.row.scopes,
    client_id: found.row.client_id,
    sub: found.row.account_id,
    // aud is always shown (docs/decisions.md "Resource indicators"): the RFC 8707 resource, the issuer when none was asked for.
    aud: found.row.resource,
    iss: ctx.config.issuer,
    exp: found.row.expires_at,
    iat: found.row.created_at,
    // RFC 9449 §6.2: a bound access token is of type DPoP, and names its key.
    token_type: found.tokenType === 'Bearer' && found.row.jkt !== null ? 'DPoP' : found.tokenType,
    ...(found.row.jkt !== null ? { cnf: { jkt: found.row.jkt } } : {}),
  };
}

export async function introspectRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PATHS.introspection,
    {
      config: { errorStyle: 'oauth-form' },
      preValidation: requireForm,
      schema: {
        tags: ['oauth'],
        summary: 'Introspect a token issued to the calling client (RFC 7662)',
        security: CLIENT_AUTH_SECURITY,
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenLookupBody,
        response: { 200: IntrospectionResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const presented = param(request.body.token);
      const hint = param(request.body.token_type_hint);
      let read: AccessRead = NOT_READ;
      // The client and the access token read together (one statement where that saves a round
      // trip). The token's row is only looked at once the client has authenticated.
      const readTogether =
        presented !== undefined && hint !== 'refresh_token'
          ? async (clientId: string) => {
              const found = await ctx.store.clients.findWithAccessToken(clientId, hashSecret(presented));
              read = found.row;
              return found.client;
            }
          : undefined;
      const client = await authenticateClient(ctx, clientCredentials(request), undefined, readTogether);
      const token = required(presented, 'token', 'send the token to introspect');
      const answer = await introspect(ctx, client, token, hint, read);
      return reply.headers(NO_STORE).send(answer);
    },
  );
}
