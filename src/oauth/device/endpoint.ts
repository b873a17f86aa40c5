/**
 * POST /api/oauth/device_authorization (RFC 8628 §3.1–§3.2): a client registered for the device
 * grant names itself (and authenticates, when confidential), asks for scopes and a resource, and
 * gets a device code to poll the token endpoint with and a user code for the person to type at
 * verification_uri. Only hashes of both codes are stored (docs/storage.md `device_authorizations`).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { mintSecret } from '../../crypto/tokens.js';
import { OAuthError } from '../../errors.js';
import { countDeviceAuthorization } from '../../ops/metrics.js';
import { PATHS } from '../../paths.js';
import type { EndpointLimits } from '../../rate-limit/endpoint-limits.js';
import type { Client } from '../../storage/schema.js';
import { authenticateClient } from '../client-auth.js';
import { DEVICE_CODE_GRANT } from '../client-metadata.js';
import { clientCredentials, param, requireForm } from '../form-request.js';
import { resolveResource } from '../resource.js';
import { formatScope, parseRequestedScope } from '../scopes.js';
import { CLIENT_AUTH_SECURITY, NO_STORE, OAuthErrorBody } from '../wire-schemas.js';
import { displayUserCode, mintUserCode, userCodeHash } from './user-code.js';

/** RFC 8628 §3.2: the minimum seconds between polls; 5 when the server says nothing, and here. */
export const DEVICE_POLL_INTERVAL = 5;

/** Draws of a user code before giving up (a live one already holds each value drawn). */
const USER_CODE_DRAWS = 5;

const DeviceAuthorizationRequest = Type.Object(
  {
    client_id: Type.Optional(
      Type.String({ description: 'The client identifier (optional with HTTP Basic)' }),
    ),
    client_secret: Type.Optional(
      Type.String({ description: 'Confidential clients using client_secret_post' }),
    ),
    scope: Type.Optional(
      Type.String({ description: 'Space-separated scopes; without it: openid profile account:read' }),
    ),
    resource: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String())], {
        description: 'RFC 8707 resource indicator; only this server’s API (the issuer)',
      }),
    ),
  },
  { additionalProperties: true },
);

const DeviceAuthorizationResponse = Type.Object({
  device_code: Type.String({ description: 'Poll the token endpoint with it (grant_type device_code)' }),
  user_code: Type.String({ description: 'What the person types at verification_uri, e.g. BCDF-GHJK' }),
  verification_uri: Type.String(),
  verification_uri_complete: Type.String({ description: 'verification_uri with the code filled in' }),
  expires_in: Type.Integer({ description: 'Seconds until both codes expire (DEVICE_CODE_TTL, default 600)' }),
  interval: Type.Integer({ description: 'Seconds to wait between polls (5)' }),
});

/** RFC 8628 §3.1 refers to RFC 6749 §5.2's errors: a client without the grant is unauthorized_client. */
function checkDeviceGrant(client: Client): void {
  if (!(JSON.parse(client.grant_types) as string[]).includes(DEVICE_CODE_GRANT)) {
    throw new OAuthError(
      'unauthorized_client',
      `this client is not registered for the device authorization grant; register it with grant_types including "${DEVICE_CODE_GRANT}" (beside authorization_code and loopback redirect_uris), or ask the operator for a --device integration`,
    );
  }
}

function oneResource(value: string | string[] | undefined, issuer: string): string {
  const values = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  let resource = issuer;
  for (const v of values) {
    const resolved = resolveResource(v, issuer);
    if ('error' in resolved) throw new OAuthError('invalid_target', resolved.error);
    resource = resolved.resource;
  }
  return resource;
}

export async function deviceAuthorizationRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  limits: Pick<EndpointLimits, 'token'>,
): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PATHS.deviceAuthorization,
    {
      config: { errorStyle: 'oauth-form' },
      preValidation: requireForm,
      schema: {
        tags: ['oauth'],
        summary: 'Start the device authorization grant (RFC 8628): a device code and a user code',
        security: CLIENT_AUTH_SECURITY,
        consumes: ['application/x-www-form-urlencoded'],
        body: DeviceAuthorizationRequest,
        response: { 200: DeviceAuthorizationResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const params = request.body;
      // Counted as a token request (RATE_LIMIT_TOKEN, per proven client, else per address).
      const client = await authenticateClient(ctx, clientCredentials(request), (proven) =>
        limits.token(request, proven),
      );
      checkDeviceGrant(client);
      const parsed = parseRequestedScope(param(params.scope));
      if ('error' in parsed) throw new OAuthError('invalid_scope', parsed.error);
      const resource = oneResource(params.resource, ctx.config.issuer);
      const now = ctx.now();
      const deviceCode = mintSecret('deviceCode');
      const expiresIn = ctx.config.deviceCodeTtl;
      for (let draw = 0; draw < USER_CODE_DRAWS; draw++) {
        const userCode = mintUserCode();
        const created = await ctx.store.deviceAuthorizations.create({
          deviceCodeHash: deviceCode.hash,
          userCodeHash: userCodeHash(userCode),
          clientId: client.id,
          scopes: formatScope(parsed.scopes),
          resource,
          interval: DEVICE_POLL_INTERVAL,
          createdAt: now,
          expiresAt: now + expiresIn,
        });
        if (!created) continue;
        countDeviceAuthorization('created');
        const shown = displayUserCode(userCode);
        const verificationUri = ctx.config.issuer + PATHS.device;
        return reply.headers(NO_STORE).send({
          device_code: deviceCode.value,
          user_code: shown,
          verification_uri: verificationUri,
          verification_uri_complete: `${verificationUri}?user_code=${shown}`,
          expires_in: expiresIn,
          interval: DEVICE_POLL_INTERVAL,
        });
      }
      // 2^40 codes: five taken in a row means the table is full of live requests (an attack).
      throw new OAuthError(
        'temporarily_unavailable',
        'no user code is free right now; try again in a minute',
      );
    },
  );
}
