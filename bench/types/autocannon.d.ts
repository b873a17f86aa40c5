// The part of autocannon's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface RequestSpec extends RawRequest {
    setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest | undefined;
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string>,
    ) => void;
  }

  export interface Options extends RawRequest {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    requests?: RequestSpec[];
    expectBody?: string;
    sampleInt?: number;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    [percentile: string]: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
