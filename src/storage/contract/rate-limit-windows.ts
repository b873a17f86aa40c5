/**
 * The rate-limit counts several instances share (src/rate-limit/counter-sync.ts): each instance
 * counts in memory and adds its hits to the shared rows now and then.
 */
import type { SharedWindow, WindowIncrement } from '../rate-limit-windows.repository.js';

export type { SharedWindow, WindowIncrement };

export interface RateLimitWindows {
  /**
   * Whether other instances count on this database (PostgreSQL). On SQLite one server process
   * owns the file (sqlite/server-lock.ts): its memory is the whole truth and nothing is written.
   */
  readonly shared: boolean;
  /**
   * Adds the increments to the shared rows of their windows; answers every row as it is after
   * the addition (all instances' hits). A row of an earlier window starts over at the increment;
   * a row already in a later window (an instance whose clock is ahead) is left as it is.
   */
  add(increments: readonly WindowIncrement[]): Promise<SharedWindow[]>;
}
