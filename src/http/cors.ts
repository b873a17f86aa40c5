/**
 * CORS (the Fetch standard's CORS protocol) for the routes a browser app calls with fetch(): token,
 * revocation, introspection, UserInfo, registration and the school API. Only for origins that are
 * loopback — a single-page app on a developer's dev server, whose loopback redirect URI
 * registration already accepts (RFC 8252 §7.3) — and for the integrations' origins the operator
 * lists in CORS_ORIGINS. Never with credentials: no Access-Control-Allow-Credentials, so a browser
 * sends no cookie across origins and shows no cookie-bearing answer; these routes read none anyway
 * (cookies are parsed only by the pages' scope, app.ts). The pages (sign-in, consent, Connected
 * apps) get no CORS at all. The metadata documents and JWKS answer `*` on their own
 * (oauth/discovery.ts). docs/decisions.md "Browser apps (CORS)".
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { PATHS } from '../paths.js';

/** The methods each CORS route accepts (the preflight's Access-Control-Allow-Methods). */
const ROUTES: ReadonlyArray<readonly [path: string, methods: string]> = [
  [PATHS.token, 'POST'],
  [PATHS.revocation, 'POST'],
  [PATHS.introspection, 'POST'],
  [PATHS.registration, 'POST'],
  [PATHS.userinfo, 'GET, POST'],
  [`${PATHS.schoolApi}/*`, 'GET, POST, PATCH, DELETE'],
];

/** Request headers a browser app sends beyond the CORS-safelisted ones (DPoP for RFC 9449 later). */
const ALLOW_HEADERS = 'Authorization, Content-Type, DPoP';
/** Answer headers a client needs to read: the bearer challenge, back-off, nonces, the reference. */
const EXPOSE_HEADERS = 'WWW-Authenticate, Retry-After, DPoP-Nonce, X-Request-Id';
/** Seconds a browser may reuse a preflight's answer. */
const MAX_AGE = '600';

/** Whether `origin` may call: a loopback origin (any port) or one listed in CORS_ORIGINS. */
export function corsOriginAllowed(
  origin: string,
  config: Pick<Config, 'loopbackHosts' | 'corsOrigins'>,
): boolean {
  if (config.corsOrigins.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file:) and anything else unparsable
  }
  // An origin is scheme, host and port only; anything more is not an Origin header a browser sends.
  if (url.origin !== origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
  return config.loopbackHosts.includes(url.hostname);
}

function refusal(origin: string): ApiError {
  return new ApiError(
    'forbidden',
    `the origin ${origin} may not call this server from a browser: only loopback origins (http://127.0.0.1, http://[::1], http://localhost, any port) and the origins in the operator's CORS_ORIGINS may`,
    403,
  );
}

/**
 * Adds the CORS answer headers to every route registered in `scope` after this call, and the
 * preflight (OPTIONS) of each CORS route. An actual request from an origin that is not allowed is
 * still answered, without CORS headers: the browser then keeps the answer from the page (and a
 * non-browser client, which sends no Origin, is not concerned).
 */
export function installCors(scope: FastifyInstance, config: Config): void {
  scope.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin !== undefined) {
      reply.header('vary', 'Origin');
      if (corsOriginAllowed(origin, config)) {
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-expose-headers', EXPOSE_HEADERS);
      }
    }
    done();
  });
  for (const [path, methods] of ROUTES) {
    scope.options(path, { schema: { hide: true } }, (request, reply) =>
      preflight(request, reply, methods, config),
    );
  }
}

/** The answer to OPTIONS: a preflight from an allowed origin gets 204 and the permissions. */
function preflight(
  request: FastifyRequest,
  reply: FastifyReply,
  methods: string,
  config: Config,
): FastifyReply {
  const origin = request.headers.origin;
  reply.header('allow', `${methods}, OPTIONS`);
  reply.header('cache-control', 'no-store');
  if (origin === undefined) return reply.code(204).send();
  if (!corsOriginAllowed(origin, config)) throw refusal(origin);
  return reply
    .code(204)
    .header('access-control-allow-methods', methods)
    .header('access-control-allow-headers', ALLOW_HEADERS)
    .header('access-control-max-age', MAX_AGE)
    .send();
}
