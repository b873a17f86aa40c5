/**
 * A small HTTP client for setting up benchmark fixtures (not for load): fetch with manual
 * redirects and a cookie jar, so sign-in and consent can be driven like a browser would.
 */

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface HttpResult {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
  readonly url: string;
}

export interface HttpRequest {
  readonly method?: string;
  /** Form fields; pairs where a name repeats (checked checkboxes of one name). */
  readonly form?: Record<string, string> | ReadonlyArray<readonly [string, string]>;
  readonly json?: unknown;
  readonly headers?: Record<string, string>;
  readonly jar?: CookieJar;
}

export async function http(url: string, request: HttpRequest = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form as Record<string, string> | Array<[string, string]>).toString();
  } else if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  }
  const cookie = request.jar?.header();
  if (cookie) headers.cookie = cookie;
  const response = await fetch(url, {
    method: request.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    redirect: 'manual',
  });
  request.jar?.store(response);
  const location = response.headers.get('location') ?? undefined;
  return {
    status: response.status,
    location: location === undefined ? undefined : new URL(location, url).toString(),
    body: await response.text(),
    url,
  };
}

/** An answer a fixture step did not expect; 404 means the endpoint has not landed yet. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Parses a JSON body or throws with the status and body, so fixture failures say what happened. */
export function json<T>(result: HttpResult, expected: number[] = [200, 201]): T {
  if (!expected.includes(result.status)) {
    throw new HttpError(
      result.status,
      `${result.url} answered ${result.status}: ${result.body.slice(0, 300)}`,
    );
  }
  return JSON.parse(result.body) as T;
}

/**
 * Runs `task` for every index below `count`, at most `concurrency` at a time, on lanes numbered
 * from 0: a lane runs its tasks one after another, so state kept per lane (a cookie jar, a
 * session) is never used by two tasks at once.
 */
export async function inParallel<T>(
  count: number,
  concurrency: number,
  task: (index: number, lane: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lane = async (number: number) => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index, number);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, (_, number) => lane(number)));
  return results;
}

/**
 * Runs `attempt` with `jar`, and again up to `attempts` times in all with a new, empty jar each
 * time, handing each new jar to `onRetry` (which counts it and keeps it for what follows); throws
 * the last failure. A jar whose attempt failed may hold a session in a state the server refuses,
 * and an empty jar signs in again on a session of its own.
 */
export async function withFreshJarRetries<T>(
  jar: CookieJar,
  attempts: number,
  attempt: (jar: CookieJar) => Promise<T>,
  onRetry: (fresh: CookieJar) => void,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(jar);
    } catch (error) {
      if (n >= attempts) throw error;
      jar = new CookieJar();
      onRetry(jar);
    }
  }
}
