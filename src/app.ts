/**
 * Builds the Fastify application from its dependencies. Never listens: main.ts does, and tests
 * call `inject` or listen on an ephemeral port themselves.
 */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { apiRoutes } from './api/index.js';
import { clientErrorAnswerer, expectationAnswerer } from './client-error.js';
import { forwardClock } from './clock.js';
import { usesHsts } from './common-headers.js';
import type { AppContext } from './context.js';
import { installCors } from './cors.js';
import { authMdRoute } from './docs/auth-md.js';
import { openApiRoute, registerOpenApi } from './docs/openapi.js';
import { installErrorHandlers, sendWireError, toWireError } from './error-handler.js';
import { healthRoutes } from './health.js';
import { FORM_BODY_LIMIT, JSON_BODY_LIMIT, MAX_PATH_SEGMENT_LENGTH } from './limits.js';
import { createLogger, requestLines } from './logging.js';
import { authorizeRoutes } from './oauth/authorize/endpoint.js';
import { discoveryRoutes } from './oauth/discovery.js';
import { introspectRoutes } from './oauth/introspect.js';
import { registerRoutes } from './oauth/register.js';
import { revokeRoutes } from './oauth/revoke.js';
import { tokenRoutes } from './oauth/token/endpoint.js';
import { userinfoRoutes } from './oauth/userinfo.js';
import { installErrorMetrics, metricsRoute, observeAnswer } from './ops/metrics-routes.js';
import { assetRoutes } from './pages/assets.js';
import { authorizeView } from './pages/authorize-view.js';
import { connectedAppsRoutes } from './pages/connected-apps.routes.js';
import { homeRoutes } from './pages/home.routes.js';
import { signInRoutes } from './pages/sign-in.routes.js';
import { installPageErrorHandler } from './pages/unavailable.js';
import { createEndpointLimits, type EndpointLimits } from './rate-limit/endpoint-limits.js';
import { type Arrival, arriveUnrouted, installArrival } from './request-arrival.js';
import { requestId } from './request-id.js';
import { installRequestLineChecks } from './request-line.js';
import { urlFormats } from './school/url-fields.js';
import { deviceCookieKey } from './sessions/device-cookie.js';
import { databaseLabel } from './storage/label.js';
import { installValidation } from './validation.js';

export interface AppOptions {
  /** A pino destination for logs (tests capture them; main.ts buffers stdout); default stdout. */
  readonly logStream?: NodeJS.WritableStream | DestinationStream;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's rate-limit counters (tests flush them to the shared table on PostgreSQL). */
    rateLimits: EndpointLimits;
  }
}

export async function createApp(given: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const arrival: Arrival = {
    log: createLogger(given.config.logLevel, options.logStream),
    ended: requestLines(given.config.logRequests, observeAnswer),
    hsts: usesHsts(given.config.issuer),
  };
  const app = buildFastify(given, arrival);
  // Every route judges lifetimes and single use by a clock that never runs backwards (clock.ts).
  const ctx: AppContext = {
    ...given,
    now: forwardClock(given.now, (seconds) =>
      app.log.warn(
        { seconds },
        'the system clock stepped back; time keeps moving forward from where it was until the clock catches up',
      ),
    ),
  };
  // Counters belong to the app (one set per instance); closing the app sends their last counts.
  const limits = createEndpointLimits(ctx, app.log);
  app.decorate('rateLimits', limits);
  app.addHook('onClose', () => limits.stop());
  installValidation(app, ctx.config.issuer.startsWith('http:'));
  installErrorHandlers(app, databaseLabel(ctx.config.databaseUrl));
  installErrorMetrics(app);
  // First of the root hooks: the checks after it answer with the request's logger and headers.
  installArrival(app, arrival);
  installRequestLineChecks(app);

  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  await registerOpenApi(app, ctx);

  await app.register(async (scope) => discoveryRoutes(scope, ctx));
  await app.register(async (scope) => healthRoutes(scope, ctx));
  await app.register(assetRoutes);
  await app.register(async (scope) => homeRoutes(scope, ctx));
  // Cookies belong to the browser pages: the token, API and metadata routes never parse them.
  await app.register(async (pages) => {
    // The device-cookie key exists before the first sign-in, read once (src/sessions/device-cookie.ts).
    await deviceCookieKey(ctx);
    await pages.register(cookie);
    installPageErrorHandler(pages);
    await pages.register(async (scope) => authorizeRoutes(scope, ctx, limits, authorizeView));
    await pages.register(async (scope) => signInRoutes(scope, ctx));
    await pages.register(async (scope) => connectedAppsRoutes(scope, ctx));
  });
  // The routes a browser app calls with fetch(): CORS for loopback and listed origins (cors.ts).
  await app.register(async (cors) => {
    installCors(cors, ctx.config);
    await cors.register(async (scope) => registerRoutes(scope, ctx, limits));
    await cors.register(async (scope) => tokenRoutes(scope, ctx, limits));
    await cors.register(async (scope) => userinfoRoutes(scope, ctx));
    await cors.register(async (scope) => revokeRoutes(scope, ctx));
    await cors.register(async (scope) => introspectRoutes(scope, ctx));
    await cors.register(async (scope) => apiRoutes(scope, ctx, limits));
  });
  await app.register(openApiRoute);
  await app.register(async (scope) => authMdRoute(scope, ctx));
  await app.register(async (scope) => metricsRoute(scope, ctx));
  return app;
}

function buildFastify(ctx: AppContext, arrival: Arrival): FastifyInstance {
  const hsts = arrival.hsts;
  const requestTimeoutMs = ctx.config.requestTimeout * 1000;
  const app = Fastify({
    // No logger of Fastify's own: `app.log` is set below, and request-arrival.ts gives each
    // request its logger and writes its line (logging.ts) when the answer ends.
    logger: false,
    // The request's line is ours (logging.ts `requestLines`), not Fastify's.
    disableRequestLogging: true,
    // Fastify accepts a hop count too; its type omits it.
    trustProxy: ctx.config.trustProxy as boolean | string,
    bodyLimit: JSON_BODY_LIMIT,
    // A request whose body trickles in is answered 408 (client-error.ts) and its connection closed
    // once REQUEST_TIMEOUT has passed since it began; a silent or idle kept-alive connection is
    // closed after IDLE_TIMEOUT (docs/security.md "Threat model"). Fastify's defaults leave both open.
    requestTimeout: requestTimeoutMs,
    connectionTimeout: ctx.config.idleTimeout * 1000,
    keepAliveTimeout: ctx.config.idleTimeout * 1000,
    // A request Node cannot even parse (oversized headers, bad framing) still gets a JSON error.
    clientErrorHandler: clientErrorAnswerer(hsts),
    // Errors the router meets before any route (bad percent-encoding, an overlong path segment).
    // No hook runs for them: their logger, the watch on their end and the common headers are set here.
    frameworkErrors: (error, request, reply) => {
      arriveUnrouted(arrival, request, reply);
      return sendWireError(reply, toWireError(error, request));
    },
    http: {
      // RFC 9112 §3.2: a missing Host is answered 400 by request-line.ts, in JSON, not by Node.
      requireHostHeader: false,
      // Node checks the request and header deadlines on this period (default 30 s): once a second
      // keeps a timed-out request's 408 within a second of REQUEST_TIMEOUT.
      connectionsCheckingInterval: 1000,
      headersTimeout: Math.min(60_000, requestTimeoutMs),
    },
    genReqId: requestId,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT_LENGTH },
    // The response serializer's own Ajv (for anyOf branches) must know the URL formats too.
    serializerOpts: { ajv: { formats: urlFormats(ctx.config.issuer.startsWith('http:')) } },
    // During a graceful shutdown a request that arrives on a connection already open is served
    // (then the connection closes), not refused with 503: the balancer's kept-alive connections
    // would otherwise turn a rolling restart into failed requests (src/ops/shutdown.ts).
    return503OnClosing: false,
  });
  app.log = arrival.log;
  // An Expect other than 100-continue: 417 in JSON instead of Node's empty answer.
  app.server.on('checkExpectation', expectationAnswerer(hsts));
  return app;
}
