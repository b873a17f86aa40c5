/**
 * The moment a request's answer ends, for its log line and its metric (logging.ts,
 * ops/metrics-routes.ts). Fastify takes that moment only when it has a logger of its own, by
 * adding `finish` and `error` listeners to every response and removing them again, with two
 * clock reads and its log controller: about 5 900 instructions of a metadata answer's 83 000
 * (docs/performance.md, "The framework floor, rung by rung"). server.ts runs Fastify without a
 * logger and hands Node's server `EndingResponse` instead, which says when its answer ends with
 * one call and no listener. Guarded by test/http/answer-end.test.ts.
 */
import { type IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyReply } from 'fastify';

/** Called once per answer: its time in milliseconds, and the error that cut it short if one did. */
export type AnswerEnded = (elapsedMs: number, error?: Error) => void;

/**
 * A response that calls its `ended` once, when the answer's last byte is handed to Node (`end`)
 * or when it is destroyed with an error before that. The clock starts when Node makes the
 * response for a parsed request, before routing.
 */
export class EndingResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  readonly startedAt = performance.now();
  ended: AnswerEnded | undefined = undefined;

  override end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
    // One call with the caller's arguments: end(cb), end(chunk, cb) and end(chunk, encoding, cb)
    // all reach OutgoingMessage.end as given (undefined where the caller gave nothing).
    (ServerResponse.prototype.end as (...args: unknown[]) => this).call(this, chunk, encoding, callback);
    this.settle(undefined);
    return this;
  }

  override destroy(error?: Error): this {
    super.destroy(error);
    // An answer destroyed without an error (the client went away) was never given: no line.
    if (error) this.settle(error);
    return this;
  }

  private settle(error: Error | undefined): void {
    const ended = this.ended;
    if (ended === undefined) return;
    this.ended = undefined;
    ended(performance.now() - this.startedAt, error);
  }
}

/**
 * Calls `ended` when this reply's answer ends. Node's server makes EndingResponse (server.ts);
 * `inject` answers through light-my-request's own response, watched by listeners as Fastify would.
 */
export function watchAnswerEnd(reply: FastifyReply, ended: AnswerEnded): void {
  const raw = reply.raw;
  if (raw instanceof EndingResponse) {
    raw.ended = ended;
    return;
  }
  const startedAt = performance.now();
  const settle = (error?: Error): void => {
    raw.off('finish', settle);
    raw.off('error', settle);
    ended(performance.now() - startedAt, error);
  };
  raw.on('finish', settle);
  raw.on('error', settle);
}
