/**
 * The per-endpoint limits (README "Rate limits"), as Fastify hooks the endpoint modules attach:
 * registration per client IP, the token endpoint per client_id, the API per access token.
 * Each is one shared counter hit; RATE_LIMITS=off turns them all off.
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { basicClientId } from '../oauth/basic-auth.js';
import { readAuthorizationHeader } from '../resource-server/bearer.js';
import { hit, limitKey } from './counter.js';
import { rateLimited } from './rate-limited.js';

const MINUTE = 60;

type Ctx = Pick<AppContext, 'db' | 'config' | 'now'>;
/** The hooks to attach: one, or none at all when RATE_LIMITS=off (no per-request cost then). */
export type RateLimitHooks = ReadonlyArray<(request: FastifyRequest) => Promise<void>>;

interface Rule {
  readonly limit: (config: AppContext['config']) => number;
  readonly key: (request: FastifyRequest) => string;
  readonly what: string;
}

function hook(ctx: Ctx, rule: Rule): RateLimitHooks {
  if (!ctx.config.rateLimits) return [];
  return [
    async (request) => {
      const result = await hit(ctx.db, rule.key(request), rule.limit(ctx.config), MINUTE, ctx.now());
      if (!result.allowed) throw rateLimited(result.retryAfter, rule.what);
    },
  ];
}

/** RATE_LIMIT_REGISTER registrations per minute per client IP (SPEC §5). Attach as `onRequest`. */
export function registrationRateLimit(ctx: Ctx): RateLimitHooks {
  return hook(ctx, {
    limit: (c) => c.rateLimitRegister,
    key: (request) => limitKey('register:ip', request.ip),
    what: 'registrations from this address',
  });
}

function bodyClientId(request: FastifyRequest): string | undefined {
  const body = request.body as Record<string, unknown> | null | undefined;
  const value = body && typeof body === 'object' ? body.client_id : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The client_id a token request names: in the body, or in HTTP Basic credentials. */
function requestClientId(request: FastifyRequest): string | undefined {
  return bodyClientId(request) ?? basicClientId(request.headers.authorization);
}

/**
 * RATE_LIMIT_TOKEN token requests per minute per client_id (body or HTTP Basic); a request naming
 * no client counts against its IP. Attach as `preValidation` (the body is parsed, not yet validated).
 */
export function tokenRateLimit(ctx: Ctx): RateLimitHooks {
  return hook(ctx, {
    limit: (c) => c.rateLimitToken,
    key: (request) => {
      const clientId = requestClientId(request);
      return clientId ? limitKey('token:client', clientId) : limitKey('token:ip', request.ip);
    },
    what: 'token requests for this client',
  });
}

/**
 * RATE_LIMIT_API requests per minute per access token (keyed by its hash, never the token);
 * anonymous requests count per IP. Attach as `onRequest` on the API routes.
 */
export function apiRateLimit(ctx: Ctx): RateLimitHooks {
  return hook(ctx, {
    limit: (c) => c.rateLimitApi,
    key: (request) => {
      const bearer = readAuthorizationHeader(request.headers.authorization);
      return bearer.kind === 'token'
        ? limitKey('api:token', bearer.token, true)
        : limitKey('api:ip', request.ip);
    },
    what: 'API requests with this token',
  });
}
