/**
 * Every 2xx answer's own response time over a window made of several load runs (the prune's
 * one-second runs), so that a percentile covers the whole window, not one run at a time.
 * autocannon's own percentiles come from a histogram of whole milliseconds (a p99 of 3.9 ms reads
 * 3), and a run's percentile cannot be merged with another's; these keep each time as measured.
 */

/** Times are kept in blocks of this many (8 bytes each), so a long window never copies them all. */
const BLOCK = 65_536;

export interface ResponseTimeSummary {
  /** 2xx answers in the window. */
  readonly count: number;
  /** The 99th percentile, ms (nearest rank); 0 for an empty window. */
  readonly p99: number;
}

export class ResponseTimes {
  private readonly full: Float64Array[] = [];
  private block = new Float64Array(BLOCK);
  private used = 0;

  /** One answer's time from request sent to response read, ms. */
  add(ms: number): void {
    if (this.used === BLOCK) {
      this.full.push(this.block);
      this.block = new Float64Array(BLOCK);
      this.used = 0;
    }
    this.block[this.used++] = ms;
  }

  get count(): number {
    return this.full.length * BLOCK + this.used;
  }

  /** The `q` quantile (0 < q ≤ 1) by nearest rank: the smallest time that many answers were within. */
  quantile(q: number): number {
    const count = this.count;
    if (count === 0) return 0;
    const all = new Float64Array(count);
    for (const [i, block] of this.full.entries()) all.set(block, i * BLOCK);
    all.set(this.block.subarray(0, this.used), this.full.length * BLOCK);
    all.sort();
    return all[Math.min(count, Math.max(1, Math.ceil(q * count))) - 1]!;
  }

  summary(): ResponseTimeSummary {
    return { count: this.count, p99: this.quantile(0.99) };
  }
}
