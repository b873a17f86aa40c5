/**
 * What every request gets the moment it arrives, before any check can answer it: its logger
 * (bound to its request id) and the common headers; and when its answer ends (Fastify's
 * onResponse hook, timed by `reply.elapsedTime`), its log line and its metric.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timedOutSockets } from './client-error.js';
import { setCommonHeaders } from './common-headers.js';
import { type RequestEnded, requestLogger } from './logging.js';

export interface Arrival {
  /** The server's logger; each request logs through a child of it. */
  readonly log: FastifyBaseLogger;
  /** Called when each answer ends (logging.ts `requestLines`). */
  readonly ended: RequestEnded;
  /** Whether answers carry Strict-Transport-Security (common-headers.ts). */
  readonly hsts: boolean;
}

/**
 * Fastify, run without a logger of its own (server.ts), hands every request and reply a logger that
 * discards; this gives them the request's own, and sets the headers. Also called for the answers
 * Fastify gives before any hook (server.ts `frameworkErrors`).
 */
export function arrive(arrival: Arrival, request: FastifyRequest, reply: FastifyReply): void {
  const log = requestLogger(arrival.log, request.id);
  request.log = log;
  reply.log = log;
  setCommonHeaders(reply, request.id, arrival.hsts);
}

/**
 * An answer Fastify gives before routing (app.ts `frameworkErrors`): no hook runs for it, so it
 * gets its logger and headers here, and its line and metric when it has been handed to Node.
 */
export function arriveUnrouted(arrival: Arrival, request: FastifyRequest, reply: FastifyReply): void {
  arrive(arrival, request, reply);
  const started = performance.now();
  reply.raw.once('finish', () => arrival.ended(request, reply, performance.now() - started, undefined));
}

/**
 * The first root hook: every answer after it — the route's, the 404 handler's, an error's — has
 * the request's logger and the common headers (Fastify's error path keeps headers already set but
 * for content-type and content-length), and is logged and counted when it ends (onResponse; an
 * answer destroyed by an error is logged with it). Guarded by test/http/response-headers.test.ts,
 * test/http/request-lines.test.ts and the hostile-input suite.
 */
export function installArrival(app: FastifyInstance, arrival: Arrival): void {
  /** Answers logged already (an answer is logged once, by onResponse or by the close below). */
  const logged = new WeakSet<FastifyReply>();
  app.addHook('onRequest', (request, reply, done) => {
    arrive(arrival, request, reply);
    done();
  });
  // A request whose body stopped arriving was answered 408 on its socket by client-error.ts, and
  // the socket closed: Fastify's answer to the failed read never finishes, so no onResponse runs.
  // The route that was reading it logs and counts the 408 the client got when the request closes.
  app.addHook('preParsing', (request, reply, payload, done) => {
    request.raw.once('close', () => {
      if (!logged.has(reply) && timedOutSockets.has(request.raw.socket)) {
        logged.add(reply);
        arrival.ended(request, reply, reply.elapsedTime, undefined);
      }
    });
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (logged.has(reply)) {
      done();
      return;
    }
    logged.add(reply);
    arrival.ended(request, reply, reply.elapsedTime, reply.raw.errored ?? undefined);
    done();
  });
}
