/**
 * Builds the Fastify application from its dependencies. Never listens: main.ts does, and tests
 * call `inject` or listen on an ephemeral port themselves.
 */
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { apiRoutes } from './api/index.js';
import { forwardClock } from './clock.js';
import type { AppContext } from './context.js';
import { authMdRoute } from './docs/auth-md.js';
import { openApiRoute, registerOpenApi } from './docs/openapi.js';
import { installCors } from './http/cors.js';
import { createServer } from './http/server.js';
import { authorizeRoutes } from './oauth/authorize/endpoint.js';
import { deviceAuthorizationRoutes } from './oauth/device/endpoint.js';
import { discoveryRoutes } from './oauth/discovery.js';
import { introspectRoutes } from './oauth/introspect.js';
import { registerRoutes } from './oauth/register.js';
import { revokeRoutes } from './oauth/revoke.js';
import { tokenRoutes } from './oauth/token/endpoint.js';
import { userinfoRoutes } from './oauth/userinfo.js';
import { healthRoutes } from './ops/health-routes.js';
import { installErrorMetrics, metricsRoute, observeAnswer } from './ops/metrics-routes.js';
import { assetRoutes } from './pages/assets.js';
import { authorizeView } from './pages/authorize-view.js';
import { connectedAppsRoutes } from './pages/connected-apps.routes.js';
import { deviceRoutes } from './pages/device.routes.js';
import { homeRoutes } from './pages/home.routes.js';
import { signInRoutes } from './pages/sign-in.routes.js';
import { installPageErrorHandler } from './pages/unavailable.js';
import { createEndpointLimits, type EndpointLimits } from './rate-limit/endpoint-limits.js';
import { deviceCookieKey } from './sessions/device-cookie.js';

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
  // The server and its request plumbing (src/http/): ids, logging, headers, checks, errors, bodies.
  const app = await createServer(given.config, { logStream: options.logStream, observe: observeAnswer });
  installErrorMetrics(app);
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
    await pages.register(async (scope) => deviceRoutes(scope, ctx, limits));
  });
  // The routes a browser app calls with fetch(): CORS for loopback and listed origins (http/cors.ts).
  await app.register(async (cors) => {
    installCors(cors, ctx.config);
    await cors.register(async (scope) => registerRoutes(scope, ctx, limits));
    await cors.register(async (scope) => tokenRoutes(scope, ctx, limits));
    await cors.register(async (scope) => deviceAuthorizationRoutes(scope, ctx, limits));
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
