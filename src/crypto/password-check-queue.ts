/**
 * A bound on concurrent password checks, process-wide. argon2id is meant to be expensive (19 MiB
 * and tens of milliseconds of CPU per check), and every check runs on Node's libuv thread pool:
 * without a bound a flood of sign-ins queues thousands of checks there, and a person's own
 * sign-in waits behind all of them (a 1,000-attempt flood made one take 7 s). With it, at most
 * SIGNIN_CONCURRENCY checks run and SIGNIN_QUEUE wait; any more are refused at once, so the wait
 * of an admitted check is bounded and the caller can answer "busy, retry in a second".
 */
export class PasswordCheckQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  /** Runs `check` when a slot is free; undefined (nothing run) when every slot and place is taken. */
  tryRun<T>(check: () => Promise<T>): Promise<T> | undefined {
    if (this.running >= this.concurrency && this.waiting.length >= this.queue) return undefined;
    return this.run(check);
  }

  private async run<T>(check: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await check();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** The bounds a queue is built from: the Config's SIGNIN_CONCURRENCY and SIGNIN_QUEUE. */
export interface PasswordCheckLimits {
  readonly signinConcurrency: number;
  readonly signinQueue: number;
}

const queues = new WeakMap<PasswordCheckLimits, PasswordCheckQueue>();

/**
 * The queue of this configuration (the Config object is passed as its limits): one per process
 * (tests build several configurations).
 */
export function passwordCheckQueue(limits: PasswordCheckLimits): PasswordCheckQueue {
  let queue = queues.get(limits);
  if (!queue) {
    queue = new PasswordCheckQueue(limits.signinConcurrency, limits.signinQueue);
    queues.set(limits, queue);
  }
  return queue;
}
