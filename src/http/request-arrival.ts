/**
 * What every request gets the moment it arrives, before any check can answer it: its logger
 * (bound to its request id), the watch on its answer's end (its log line and its metric), and the
 * common headers. One root hook for the three: each hook run costs every request (docs/performance.md,
 * "The framework floor, rung by rung").
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { watchAnswerEnd } from './answer-end.js';
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
 * discards; this gives them the request's own, then watches the answer and sets the headers.
 * Also called for the answers Fastify gives before any hook (server.ts `frameworkErrors`).
 */
export function arrive(arrival: Arrival, request: FastifyRequest, reply: FastifyReply): void {
  const log = requestLogger(arrival.log, request.id);
  request.log = log;
  reply.log = log;
  const ended = arrival.ended;
  watchAnswerEnd(reply, (elapsedMs, error) => ended(request, reply, elapsedMs, error));
  setCommonHeaders(reply, request.id, arrival.hsts);
}

/**
 * The first root hook: every answer after it — the route's, the 404 handler's, an error's — has
 * the request's logger and the common headers (Fastify's error path keeps headers already set but
 * for content-type and content-length), and is logged and counted when it ends. Not an onSend
 * hook: with none, Fastify skips its onSend hook runner for every answer. Guarded by
 * test/http/response-headers.test.ts, test/http/answer-end.test.ts and the hostile-input suite.
 */
export function installArrival(app: FastifyInstance, arrival: Arrival): void {
  app.addHook('onRequest', (request, reply, done) => {
    arrive(arrival, request, reply);
    done();
  });
}
