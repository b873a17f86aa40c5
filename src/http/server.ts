/**
 * The Fastify server and the plumbing every request passes through whatever its route: its id,
 * its logger and log line, the common headers, the request-line checks, schema validation, the
 * one error handler and the JSON 404, form bodies, and JSON answers to what Node's parser refuses.
 * No route: app.ts registers them on the server made here.
 */
import formbody from '@fastify/formbody';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from '../config.js';
import { FORM_BODY_LIMIT, JSON_BODY_LIMIT, MAX_PATH_SEGMENT_LENGTH } from '../limits.js';
import { urlFormats } from '../school/url-fields.js';
import { databaseLabel } from '../storage/label.js';
import { clientErrorAnswerer, expectationAnswerer } from './client-error.js';
import { usesHsts } from './common-headers.js';
import { installErrorHandlers, sendWireError, toWireError } from './error-handler.js';
import { createLogger, requestLines } from './logging.js';
import { type Arrival, arriveUnrouted, installArrival } from './request-arrival.js';
import { requestId } from './request-id.js';
import { installRequestLineChecks } from './request-line.js';
import { installValidation } from './validation.js';

export interface ServerOptions {
  /** A pino destination for logs (tests capture them; main.ts buffers stdout); default stdout. */
  readonly logStream?: NodeJS.WritableStream | DestinationStream;
  /** Called when each answer ends, before its log line (the request metrics). */
  readonly observe: (request: FastifyRequest, reply: FastifyReply, elapsedMs: number) => void;
}

/** The server with its plumbing installed, ready for routes; it never listens (main.ts does). */
export async function createServer(config: Config, options: ServerOptions): Promise<FastifyInstance> {
  const arrival: Arrival = {
    log: createLogger(config.logLevel, options.logStream),
    ended: requestLines(config.logRequests, options.observe),
    hsts: usesHsts(config.issuer),
  };
  const app = buildFastify(config, arrival);
  installValidation(app, config.issuer.startsWith('http:'));
  installErrorHandlers(app, databaseLabel(config.databaseUrl));
  // First of the root hooks: the checks after it answer with the request's logger and headers.
  installArrival(app, arrival);
  installRequestLineChecks(app);
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  return app;
}

function buildFastify(config: Config, arrival: Arrival): FastifyInstance {
  const hsts = arrival.hsts;
  const requestTimeoutMs = config.requestTimeout * 1000;
  const app = Fastify({
    // No logger of Fastify's own: `app.log` is set below, and request-arrival.ts gives each
    // request its logger and writes its line (logging.ts) when the answer ends.
    logger: false,
    // The request's line is ours (logging.ts `requestLines`), not Fastify's.
    logController: new LogController({ disableRequestLogging: true }),
    // Fastify accepts a hop count too; its type omits it.
    trustProxy: config.trustProxy as boolean | string,
    bodyLimit: JSON_BODY_LIMIT,
    // A request whose body trickles in is answered 408 (client-error.ts) and its connection closed
    // once REQUEST_TIMEOUT has passed since it began; a silent or idle kept-alive connection is
    // closed after IDLE_TIMEOUT (docs/security.md "Threat model"). Fastify's defaults leave both open.
    requestTimeout: requestTimeoutMs,
    connectionTimeout: config.idleTimeout * 1000,
    keepAliveTimeout: config.idleTimeout * 1000,
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
    serializerOpts: { ajv: { formats: urlFormats(config.issuer.startsWith('http:')) } },
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
