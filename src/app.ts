/**
 * Builds the Fastify application from its dependencies. Never listens: main.ts does, and tests
 * call `inject` or listen on an ephemeral port themselves.
 */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { apiRoutes } from './api/index.js';
import { answerClientError } from './client-error.js';
import { forwardClock } from './clock.js';
import type { AppContext } from './context.js';
import { authMdRoute } from './docs/auth-md.js';
import { openApiRoute, registerOpenApi } from './docs/openapi.js';
import { installErrorHandlers } from './error-handler.js';
import { healthRoutes } from './health.js';
import { FORM_BODY_LIMIT, JSON_BODY_LIMIT } from './limits.js';
import { lazyChildLogger, loggerOptions, RequestLogController } from './logging.js';
import { authorizeRoutes } from './oauth/authorize/endpoint.js';
import { discoveryRoutes } from './oauth/discovery.js';
import { introspectRoutes } from './oauth/introspect.js';
import { registerRoutes } from './oauth/register.js';
import { revokeRoutes } from './oauth/revoke.js';
import { tokenRoutes } from './oauth/token/endpoint.js';
import { userinfoRoutes } from './oauth/userinfo.js';
import { installErrorMetrics, metricsRoute, observeAnswer } from './ops/metrics-routes.js';
import { assetRoutes } from './pages/assets.js';
import { connectedAppsRoutes } from './pages/connected-apps.routes.js';
import { signInRoutes } from './pages/sign-in.routes.js';
import { installPageErrorHandler } from './pages/unavailable.js';
import { requestId } from './request-id.js';
import { databaseLabel } from './storage/label.js';
import { installValidation } from './validation.js';

export interface AppOptions {
  /** A pino destination for logs (tests capture them; main.ts buffers stdout); default stdout. */
  readonly logStream?: NodeJS.WritableStream | DestinationStream;
}

export async function createApp(given: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = buildFastify(given, options);
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
  installValidation(app);
  installErrorHandlers(app, databaseLabel(ctx.config.databaseUrl));
  installErrorMetrics(app);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });

  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  await registerOpenApi(app, ctx);

  await app.register(async (scope) => discoveryRoutes(scope, ctx));
  await app.register(async (scope) => healthRoutes(scope, ctx));
  await app.register(assetRoutes);
  // Cookies belong to the browser pages: the token, API and metadata routes never parse them.
  await app.register(async (pages) => {
    await pages.register(cookie);
    installPageErrorHandler(pages);
    await pages.register(async (scope) => authorizeRoutes(scope, ctx));
    await pages.register(async (scope) => signInRoutes(scope, ctx));
    await pages.register(async (scope) => connectedAppsRoutes(scope, ctx));
  });
  await app.register(async (scope) => registerRoutes(scope, ctx));
  await app.register(async (scope) => tokenRoutes(scope, ctx));
  await app.register(async (scope) => userinfoRoutes(scope, ctx));
  await app.register(async (scope) => revokeRoutes(scope, ctx));
  await app.register(async (scope) => introspectRoutes(scope, ctx));
  await app.register(async (scope) => apiRoutes(scope, ctx));
  await app.register(openApiRoute);
  await app.register(async (scope) => authMdRoute(scope, ctx));
  await app.register(async (scope) => metricsRoute(scope, ctx));
  return app;
}

function buildFastify(ctx: AppContext, options: AppOptions): FastifyInstance {
  const logger = loggerOptions(ctx.config.logLevel);
  return Fastify({
    logger: options.logStream ? { ...logger, stream: options.logStream } : logger,
    logController: new RequestLogController(ctx.config.logRequests, observeAnswer),
    childLoggerFactory: lazyChildLogger,
    // Fastify accepts a hop count too; its type omits it.
    trustProxy: ctx.config.trustProxy as boolean | string,
    bodyLimit: JSON_BODY_LIMIT,
    // A request Node cannot even parse (oversized headers, bad framing) still gets a JSON error.
    clientErrorHandler: answerClientError,
    genReqId: requestId,
    routerOptions: { maxParamLength: 200 },
    // During a graceful shutdown a request that arrives on a connection already open is served
    // (then the connection closes), not refused with 503: the balancer's kept-alive connections
    // would otherwise turn a rolling restart into failed requests (src/ops/shutdown.ts).
    return503OnClosing: false,
  });
}
