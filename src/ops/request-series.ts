/**
 * The per-request HTTP metrics, counted in plain numbers and handed to prom-client only when
 * /metrics is read. prom-client's own Counter and Histogram validate and hash the label object
 * on every call; at one observation per request that was about 6% of the CPU of a metadata GET
 * (docs/performance.md). The exposition is prom-client's: these objects implement the metric
 * interface its Registry formats (`name`, `help`, `type`, `get()`).
 */
import type { Metric, Registry } from 'prom-client';

/** One line of the exposition, as prom-client's Registry formats it. */
interface ExposedValue {
  readonly metricName?: string;
  readonly labels: Record<string, string | number>;
  readonly value: number;
}

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

interface Latency {
  readonly method: string;
  readonly route: string;
  /** Observations per bucket (not cumulative); the last slot is above the largest bound. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

interface Answered {
  readonly method: string;
  readonly route: string;
  readonly status: string;
  count: number;
  /** The latency series of the same method and route (one lookup per request, not two). */
  readonly latency: Latency;
}

/** Holds the series of schoolauth_http_requests_total and schoolauth_http_request_duration_seconds. */
export class RequestSeries {
  // Keys are route pattern → method → status: a few hundred series at most, never raw URLs.
  // Every key is a string the server already holds (the route pattern, Node's method name) or a
  // small integer, so a request's lookup builds no string: a key built per request cost its
  // concatenation, flattening and hashing, in proportion to the route's length
  // (docs/performance.md, item 31).
  private readonly answered = new Map<string, Map<string, Map<number, Answered>>>();
  private readonly latency = new Map<string, Latency>();

  constructor(registry: Registry) {
    registry.registerMetric(
      this.metric(
        'schoolauth_http_requests_total',
        'HTTP requests answered, by method, route pattern and status',
        'counter',
        () => this.answeredValues(),
      ),
    );
    registry.registerMetric(
      this.metric(
        'schoolauth_http_request_duration_seconds',
        'HTTP request latency, by method and route pattern',
        'histogram',
        () => this.latencyValues(),
      ),
    );
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.answered.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.answered.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let answered = byStatus.get(status);
    if (!answered) {
      answered = { method, route, status: String(status), count: 0, latency: this.latencyOf(method, route) };
      byStatus.set(status, answered);
    }
    answered.count++;
    const latency = answered.latency;
    let slot = 0;
    while (slot < BUCKETS.length && seconds > BUCKETS[slot]!) slot++;
    latency.buckets[slot]!++;
    latency.sum += seconds;
    latency.count++;
  }

  private latencyOf(method: string, route: string): Latency {
    const key = `${method} ${route}`;
    let latency = this.latency.get(key);
    if (!latency) {
      latency = { method, route, buckets: new Array(BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.latency.set(key, latency);
    }
    return latency;
  }

  private answeredValues(): ExposedValue[] {
    const values: ExposedValue[] = [];
    for (const byMethod of this.answered.values()) {
      for (const byStatus of byMethod.values()) {
        for (const { method, route, status, count } of byStatus.values()) {
          values.push({ labels: { method, route, status }, value: count });
        }
      }
    }
    return values;
  }

  private latencyValues(): ExposedValue[] {
    const values: ExposedValue[] = [];
    const name = 'schoolauth_http_request_duration_seconds';
    for (const { method, route, buckets, sum, count } of this.latency.values()) {
      let cumulative = 0;
      BUCKETS.forEach((bound, index) => {
        cumulative += buckets[index]!;
        values.push({
          metricName: `${name}_bucket`,
          labels: { le: bound, method, route },
          value: cumulative,
        });
      });
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', method, route }, value: count });
      values.push({ metricName: `${name}_sum`, labels: { method, route }, value: sum });
      values.push({ metricName: `${name}_count`, labels: { method, route }, value: count });
    }
    return values;
  }

  private metric(
    name: string,
    help: string,
    type: 'counter' | 'histogram',
    values: () => ExposedValue[],
  ): Metric {
    const get = async () => ({ name, help, type, aggregator: 'sum', values: values() });
    // The Registry reads name, help and type and calls get(); nothing else of prom-client's Metric.
    return { name, help, type, aggregator: 'sum', get, reset: () => undefined } as unknown as Metric;
  }
}
