/** Polling for tests that watch real processes: bounded, never a fixed sleep longer than needed. */

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with how long it took once `check` answers true; throws `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** A fetch that never rejects: status 0 when no answer came, with how long it took. */
export async function timedFetch(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; ms: number; body: string; headers: Headers }> {
  const started = Date.now();
  try {
    const response = await fetch(url, init);
    const body = await response.text();
    return { status: response.status, ms: Date.now() - started, body, headers: response.headers };
  } catch {
    return { status: 0, ms: Date.now() - started, body: '', headers: new Headers() };
  }
}
