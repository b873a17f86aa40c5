/**
 * Where the metrics are served: what observes every request, `/metrics` on the main port
 * behind METRICS_TOKEN, and a separate listener on METRICS_PORT. With neither configured
 * `/metrics` does not exist (404).
 */
import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { safeEqual } from '../crypto/tokens.js';
import { OAuthError } from '../errors.js';
import { toWireError } from '../http/error-handler.js';
import { readAuthorizationHeader } from '../resource-server/bearer.js';
import { countOAuthError, METRICS_CONTENT_TYPE, metricsText, observeRequest } from './metrics.js';

/** Adds the error hook to the root instance (not encapsulated: it sees every route). */
export function installErrorMetrics(app: FastifyInstance): void {
  // A callback-style hook: an async hook costs a promise per call.
  app.addHook('onError', (request, _reply, error, done) => {
    countOAuthError(toWireError(error, request).code);
    done();
  });
}

/** Counts an answered request (called when every answer ends, http/logging.ts `requestLines`). */
export function observeAnswer(request: FastifyRequest, reply: FastifyReply, elapsedMs: number): void {
  // The route pattern, never the raw URL: unmatched paths share one label.
  const route = request.routeOptions.url ?? 'unmatched';
  observeRequest(request.method, route, reply.statusCode, elapsedMs / 1000);
}

export async function metricsRoute(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const token = ctx.config.metricsToken;
  if (token === undefined) return;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const bearer = readAuthorizationHeader(request.headers.authorization);
    if (bearer.kind !== 'token' || !safeEqual(bearer.token, token)) {
      throw new OAuthError('invalid_token', 'send Authorization: Bearer <METRICS_TOKEN>', 401, {
        'www-authenticate': 'Bearer realm="metrics"',
      });
    }
    return reply
      .header('cache-control', 'no-store')
      .type(METRICS_CONTENT_TYPE)
      .send(await metricsText());
  });
}

/** A plain listener for METRICS_PORT: GET /metrics, 404 for anything else. */
export async function startMetricsServer(host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metricsText().then(
      (body) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
