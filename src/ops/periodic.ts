/**
 * A background job run every `seconds`: one run at a time (a slow run skips the ticks it
 * overlaps), a failure logged and retried at the next tick, and a stop that waits for the run in
 * progress so the database can close under it.
 */
export interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PeriodicJob {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function startPeriodic(
  seconds: number,
  job: () => Promise<void>,
  onError: (error: unknown) => void,
): PeriodicJob {
  if (seconds <= 0) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= job()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  }, seconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
