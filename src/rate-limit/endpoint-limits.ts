/**
 * The per-endpoint limits (README "Rate limits"), as Fastify hooks the endpoint modules attach:
 * registration per client IP, the token endpoint per client_id, the API per access token.
 * Each is one shared counter hit; RATE_LIMITS=off turns them all off.
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { readAuthorizationHeader } from '../resource-server/bearer.js';
import { whyUnavailable } from '../storage/unavailable.js';
import { type HitResult, hit, limitKey } from './counter.js';
import { rateLimited } from './rate-limited.js';

const MINUTE = 60;

type Ctx = Pick<AppContext, 'db' | 'config' | 'now'>;
/** The hooks to attach: one, or none at all when RATE_LIMITS=off (no per-request cost then). */
export type RateLimitHooks = ReadonlyArray<(request: FastifyRequest) => Promise<void>>;

interface Rule {
  readonly limit: (config: AppContext['config']) => number;
  readonly key: (request: FastifyRequest) => string;
  readonly what: string;
  /**
   * Whether a hit that cannot be stored because the database can read but not write (a full
   * disk) lets the request through uncounted, instead of answering 503.
   */
  readonly uncountedWhenFull?: boolean;
}

/** The database reads but cannot write: counting is impossible, serving a read is not. */
const cannotWrite = (error: unknown): boolean => {
  const reason = whyUnavailable(error);
  return reason === 'disk_full' || reason === 'io_error';
};

function hook(ctx: Ctx, rule: Rule): RateLimitHooks {
  if (!ctx.config.rateLimits) return [];
  return [
    async (request) => {
      let result: HitResult;
      try {
        result = await hit(ctx.db, rule.key(request), rule.limit(ctx.config), MINUTE, ctx.now());
      } catch (error) {
        if (rule.uncountedWhenFull && cannotWrite(error)) return;
        throw error;
      }
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

/**
 * RATE_LIMIT_TOKEN token requests per minute per client_id; a request naming no client counts
 * against its IP. Attach as `preValidation` (the body is parsed, not yet validated).
 */
export function tokenRateLimit(ctx: Ctx): RateLimitHooks {
  return hook(ctx, {
    limit: (c) => c.rateLimitToken,
    key: (request) => {
      const clientId = bodyClientId(request);
      return clientId ? limitKey('token:client', clientId) : limitKey('token:ip', request.ip);
    },
    what: 'token requests for this client',
  });
}

/**
 * RATE_LIMIT_API requests per minute per access token (keyed by its hash, never the token);
 * anonymous requests count per IP. Attach as `onRequest` on the API routes. On a full disk the
 * API's reads keep working, uncounted (docs/decisions.md "When the database fails"); its writes
 * fail on their own with 503.
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
    uncountedWhenFull: true,
  });
}
