/**
 * The application's clock never runs backwards. Lifetimes and single use are judged against it:
 * were the system clock stepped back (a bad NTP source, a VM restored from a snapshot, an operator
 * fixing the time by hand), a code or token that had expired would live again, and a refresh
 * token rotated longer ago than REFRESH_GRACE would look like a repeat within the window. So
 * after a step back the clock keeps counting from the latest time it answered, by the process's
 * monotonic clock, until the system clock catches up. A step forward is taken as it comes:
 * things expire early, never late.
 */

/**
 * Wraps `clock` (epoch seconds) so its answers never decrease; `onStepBack` hears of each step
 * back once, with how many seconds the clock fell behind.
 */
export function forwardClock(clock: () => number, onStepBack?: (seconds: number) => void): () => number {
  /** The latest time answered, and performance.now() when it was first answered. */
  let latest = Number.NEGATIVE_INFINITY;
  let latestAt = 0;
  let behind = false;
  return () => {
    const wall = clock();
    // The common case, one comparison: the clock moved on, or is within the same second.
    if (wall > latest || (wall === latest && !behind)) {
      if (wall > latest) {
        latest = wall;
        latestAt = performance.now();
        behind = false;
      }
      return wall;
    }
    // Behind: count on from `latest` by the monotonic clock (never ahead of the real time).
    const carried = latest + Math.floor((performance.now() - latestAt) / 1000);
    if (wall >= carried) {
      latest = wall;
      latestAt = performance.now();
      behind = false;
      return wall;
    }
    if (!behind) onStepBack?.(carried - wall);
    behind = true;
    return carried;
  };
}
