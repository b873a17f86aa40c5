/**
 * Fixed-window hit counters held in this process's memory (issue 22): a check is a Map lookup
 * and an addition, never a database statement. Windows are aligned to multiples of their length
 * since the epoch, so every instance's window for a key opens and closes at the same second and
 * the instances' counts can be added up in the shared table (counter-sync.ts).
 *
 * Memory is bounded: at most `maxKeys` keys. The Map keeps windows in the order they opened,
 * oldest first; opening a key drops up to two closed windows from the front (so the Map shrinks
 * as fast as it grows), and when it is still full the oldest window goes, open or not.
 */

import type { SharedWindow, WindowIncrement } from '../storage/contract/rate-limit-windows.js';

export interface WindowHit {
  readonly allowed: boolean;
  /** Hits in the current window, this one included (this instance's and, as last heard, the others'). */
  readonly count: number;
  /** Seconds until the window closes (at least 1). */
  readonly retryAfter: number;
}

interface Window {
  end: number;
  /** Hits counted by this instance. */
  own: number;
  /** Of `own`, not yet handed to the shared table. */
  unsent: number;
  /** Of `own`, already in the shared row. */
  sent: number;
  /** Other instances' hits, as the shared row showed them at the last flush. */
  others: number;
}

/** Closed windows dropped when a key opens, so the Map shrinks as fast as it grows. */
const SWEEP_PER_OPEN = 2;

export class WindowCounters {
  readonly #windows = new Map<string, Window>();

  constructor(readonly maxKeys: number) {}

  /** Keys held now. */
  get size(): number {
    return this.#windows.size;
  }

  /** Counts one hit on `key`; allowed while the window holds at most `limit` hits. */
  hit(key: string, limit: number, windowSeconds: number, now: number): WindowHit {
    const end = now - (now % windowSeconds) + windowSeconds;
    let window = this.#windows.get(key);
    if (window === undefined || window.end < end) window = this.#open(key, end, now);
    window.own += 1;
    window.unsent += 1;
    const count = window.own + window.others;
    return { allowed: count <= limit, count, retryAfter: Math.max(1, window.end - now) };
  }

  /**
   * Takes back one hit counted on `key` in the window open at `now` (a hit that turned out not to
   * count, e.g. a right user code). Unsent may go below zero: the flush then hands the shared row a
   * negative increment, so the other instances forget the hit too.
   */
  refund(key: string, windowSeconds: number, now: number): void {
    const end = now - (now % windowSeconds) + windowSeconds;
    const window = this.#windows.get(key);
    if (window?.end !== end || window.own === 0) return;
    window.own -= 1;
    window.unsent -= 1;
  }

  /** Takes the hits not yet sent of every open window (those of closed windows are dropped). */
  takeUnsent(now: number): WindowIncrement[] {
    const increments: WindowIncrement[] = [];
    for (const [key, window] of this.#windows) {
      if (window.unsent === 0) continue;
      if (window.end > now) increments.push({ key, count: window.unsent, resetAt: window.end });
      window.unsent = 0;
    }
    return increments;
  }

  /** The increments are in the shared table, which answered `rows`: learn the others' hits. */
  settle(increments: readonly WindowIncrement[], rows: readonly SharedWindow[]): void {
    const answered = new Map(rows.map((row) => [row.key, row]));
    for (const increment of increments) {
      const window = this.#current(increment);
      if (!window) continue;
      window.sent += increment.count;
      const row = answered.get(increment.key);
      // A row of a later window (another instance's clock is ahead) says nothing about this one.
      if (row && Number(row.reset_at) === window.end) {
        window.others = Math.max(0, Number(row.count) - window.sent);
      }
    }
  }

  /** The increments did not reach the shared table: send them with the next flush. */
  restore(increments: readonly WindowIncrement[]): void {
    for (const increment of increments) {
      const window = this.#current(increment);
      if (window) window.unsent += increment.count;
    }
  }

  #current(increment: WindowIncrement): Window | undefined {
    const window = this.#windows.get(increment.key);
    return window?.end === increment.resetAt ? window : undefined;
  }

  #open(key: string, end: number, now: number): Window {
    // Deleted first so the key moves to the end of the Map: oldest windows stay in front.
    this.#windows.delete(key);
    this.#sweep(now);
    // Full of open windows: the oldest goes (constant time, so a flood of new keys costs no scan).
    if (this.#windows.size >= this.maxKeys) this.#windows.delete(this.#windows.keys().next().value as string);
    const window: Window = { end, own: 0, unsent: 0, sent: 0, others: 0 };
    this.#windows.set(key, window);
    return window;
  }

  /** Drops up to SWEEP_PER_OPEN closed windows from the front, stopping at the first open one. */
  #sweep(now: number): void {
    let dropped = 0;
    for (const [key, window] of this.#windows) {
      if (dropped === SWEEP_PER_OPEN || window.end > now) return;
      this.#windows.delete(key);
      dropped += 1;
    }
  }
}
