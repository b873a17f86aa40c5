/**
 * One measured load run with autocannon's programmatic API: a fixed number of connections for a
 * fixed duration, each request either the same bytes every time or the next item of a pool of
 * single-use values (codes, refresh tokens). Requests per second count 2xx answers only.
 */

import autocannon, { type Instance, type RawRequest, type RequestSpec, type Result } from 'autocannon';
import { cpuSecondsOf } from './child.js';
import type { ResponseTimes } from './response-times.js';

export interface StaticRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/**
 * Headers made anew for every request, over the plan's own (a DPoP proof: a new `jti` and `iat`
 * each time, RFC 9449 §4.2). Called when the load generator builds the request, synchronously.
 */
export type FreshHeaders = () => Record<string, string>;

/** What a scenario asks the load generator to send. */
export type LoadPlan =
  | { readonly kind: 'static'; readonly request: StaticRequest; readonly fresh?: FreshHeaders }
  | {
      readonly kind: 'pool';
      readonly base: StaticRequest;
      /** The body for the next single-use value, or undefined when the pool is empty. */
      readonly next: () => string | undefined;
      readonly fresh?: FreshHeaders;
    }
  /** A mixed sequence every connection loops over (the soak). */
  | { readonly kind: 'sequence'; readonly requests: RequestSpec[] };

export interface Measurement {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
  readonly nonOk: number;
  readonly errors: number;
  readonly seconds: number;
  /** The pool ran out before the duration ended (the run stopped early). */
  readonly exhausted: boolean;
  readonly statusCodes: Record<string, number>;
  /** CPU seconds the server used during the run (when its pid was given; Linux). */
  readonly serverCpuSeconds: number | undefined;
}

export interface LoadOptions {
  readonly baseUrl: string;
  readonly connections: number;
  readonly seconds: number;
  readonly plan: LoadPlan;
  /** The server's pid, to read the CPU time it used during the run. */
  readonly pid?: number;
  /** Reads the server's CPU seconds instead of the pid's (several processes answer). */
  readonly cpuSeconds?: (() => number | undefined) | undefined;
  /** Stop after this many requests (rather than at the end of the duration). */
  readonly amount?: number;
  /** Also adds every 2xx answer's own response time here. */
  readonly responseTimes?: ResponseTimes | undefined;
}

// A short sample interval: autocannon notices the end of a run (duration or empty pool) only at
// the next sample, so this bounds the overrun to 100 ms.
const SAMPLE_MS = 100;

/** The request with `fresh`'s headers added (autocannon rebuilds a request that has setupRequest). */
function withFresh(request: RawRequest, fresh: FreshHeaders | undefined): RawRequest {
  return fresh ? { ...request, headers: { ...request.headers, ...fresh() } } : request;
}

function requestsFor(plan: LoadPlan, stop: () => void): RequestSpec[] {
  if (plan.kind === 'sequence') return plan.requests;
  const { fresh } = plan;
  if (plan.kind === 'static') {
    if (!fresh) return [{ ...plan.request }];
    return [{ ...plan.request, setupRequest: (request: RawRequest) => withFresh(request, fresh) }];
  }
  let last: string | undefined;
  return [
    {
      ...plan.base,
      setupRequest(request: RawRequest): RawRequest {
        const body = plan.next();
        if (body === undefined) stop();
        last = body ?? last;
        return withFresh({ ...request, body: last ?? '' }, fresh);
      },
    },
  ];
}

export async function runLoad(options: LoadOptions): Promise<Measurement> {
  let instance: Instance | undefined;
  let exhausted = false;
  const stop = () => {
    exhausted = true;
    instance?.stop();
  };
  const pid = options.pid;
  const cpuOf = options.cpuSeconds ?? (() => (pid === undefined ? undefined : cpuSecondsOf(pid)));
  const cpuBefore = cpuOf();
  const result = await new Promise<Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        duration: options.seconds,
        timeout: 30,
        sampleInt: SAMPLE_MS,
        ...(options.amount === undefined ? {} : { amount: options.amount }),
        requests: requestsFor(options.plan, stop),
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    );
    const times = options.responseTimes;
    // autocannon's 'response' event: (client, statusCode, bytes, responseTime in ms).
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) times?.add(ms);
    });
  });
  const cpuAfter = cpuOf();
  const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
  return summarise(result, exhausted, cpu);
}

function summarise(result: Result, exhausted: boolean, serverCpuSeconds: number | undefined): Measurement {
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
  const seconds = result.duration;
  return {
    rps: seconds > 0 ? result['2xx'] / seconds : 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    nonOk: result.non2xx,
    errors: result.errors + result.timeouts,
    seconds,
    exhausted,
    statusCodes,
    serverCpuSeconds,
  };
}
