/**
 * The school API under /api/v1: the resource-server guard, the generic families, the few
 * hand-written resources (account, schools, appearance, analytics, uploads), and the OpenAPI
 * security and error responses every operation gets from its access rule.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { AppContext } from '../context.js';
import { PATHS } from '../paths.js';
import type { EndpointLimits } from '../rate-limit/endpoint-limits.js';
import { installGuard } from '../resource-server/guard.js';
import type { Access } from '../resource-server/principal.js';
import { FAMILIES } from '../school/families/index.js';
import { accountRoutes } from './account.js';
import { analyticsRoutes } from './analytics.js';
import { registerFamily } from './builder.js';
import { refuseFormBodies } from './json-bodies.js';
import { errorSchema } from './schemas.js';
import { schoolRoutes } from './schools.js';
import { uploadFileRoute, uploadRoutes } from './uploads.js';

export const API_PREFIX = PATHS.schoolApi;

const errorResponse = (description: string) => ({ ...errorSchema, description });

/** OpenAPI for an access rule: the scope it needs (plus `{}` where anonymous is served) and its errors. */
function documentAccess(route: RouteOptions, access: Access): void {
  route.schema ??= {};
  const schema = route.schema as Record<string, unknown>;
  // The token as Bearer, or DPoP-bound with its proof (RFC 9449 §7; the dpop scheme of /openapi.json).
  const token = [{ oauth2: [access.scope] }, { dpop: [access.scope] }];
  schema.security = access.anonymous ? [...token, {}] : token;
  schema.response ??= {};
  const response = schema.response as Record<string | number, unknown>;
  response[400] ??= errorResponse('Bad input: the description names the field (`invalid_request`)');
  response[401] ??= errorResponse(
    'The token is invalid, expired, revoked, malformed or for another resource (`invalid_token`, with WWW-Authenticate)',
  );
  response[403] ??= errorResponse(
    access.anonymous
      ? `The token lacks "${access.scope}" (\`insufficient_scope\`, with WWW-Authenticate), or the person may not do this (\`forbidden\`)`
      : `No token (\`forbidden\`, no challenge; \`Link: <…/.well-known/oauth-protected-resource>; rel="describedby"\` and \`resource_metadata\` say how to get one), a token without "${access.scope}" (\`insufficient_scope\`, with WWW-Authenticate), or the person may not do this (\`forbidden\`)`,
  );
  response[404] ??= errorResponse('No such school or item (`not_found`)');
  if ([route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD')) {
    response[415] ??= errorResponse(
      'A form-encoded body (`unsupported_media_type`): send a JSON object with Content-Type: application/json',
    );
  }
}

async function v1(app: FastifyInstance, ctx: AppContext, limits: Pick<EndpointLimits, 'api'>): Promise<void> {
  // RATE_LIMIT_API per valid access token (per IP otherwise), counted as the guard judges it.
  installGuard(app, ctx, limits.api);
  refuseFormBodies(app);
  app.addHook('onRoute', (route) => {
    if (route.config?.access && route.method !== 'HEAD') documentAccess(route, route.config.access);
  });
  accountRoutes(app, ctx);
  schoolRoutes(app, ctx);
  for (const family of FAMILIES) registerFamily(app, ctx, family);
  analyticsRoutes(app, ctx);
  await uploadRoutes(app, ctx);
}

export async function apiRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  limits: Pick<EndpointLimits, 'api'>,
): Promise<void> {
  await app.register(async (scope) => v1(scope, ctx, limits), { prefix: API_PREFIX });
  await app.register(async (scope) => uploadFileRoute(scope, ctx));
}
