/** The sign-in throttle's counts (docs/security.md "Sign-in throttling"). */

export interface AttemptCount {
  /** False: the key is blocked; nothing was counted. */
  readonly counted: boolean;
  /** Attempts counted on the key, this one included. */
  readonly failures: number;
  /** Seconds until the key takes attempts again (0 when it is not blocked). */
  readonly retryAfter: number;
}

/** The back-off the policy (src/rate-limit/signin-throttle.ts) gives a key, as absolute times. */
export interface BackoffSchedule {
  readonly limit: number;
  /** Counts past `limit` at which the back-off still changes (after them it stays). */
  readonly steps: number;
  /** Until when a key is blocked after its `failures`-th counted attempt. */
  blockedUntil(failures: number): number;
  /** When the counts of a key with `failures` counted attempts are forgotten. */
  forgetAt(failures: number): number;
}

export interface SigninThrottle {
  /**
   * Counts one attempt on `key` unless it is blocked (then counts only the refusal): one atomic
   * statement, so N concurrent attempts get at most `limit` counted, on every instance.
   */
  count(key: string, plan: BackoffSchedule, now: number): Promise<AttemptCount>;
  /**
   * Takes back an attempt counted as the `failures`-th on its key; when it started a block and is
   * still the last counted, the block is lifted too; a row left with nothing is deleted.
   */
  refund(key: string, failures: number, limit: number, now: number): Promise<void>;
  /** Forgets every attempt counted on `key`. */
  forget(key: string): Promise<void>;
}
