/**
 * How long a fetched metadata document is kept (draft §5.2): what its response's cache headers
 * say (RFC 9111 §5.2.2 max-age, else §5.3 Expires minus Date), held within the operator's bounds.
 * The lower bound also applies to `no-store`, `no-cache` and `max-age=0`: the draft lets a server
 * set its own bounds, and the bound is what keeps an authorization request from turning into a
 * fetch every time (a side channel to the publisher, draft §9.1, and a lever for floods).
 */

export interface CacheHeaders {
  readonly cacheControl: string | undefined;
  readonly expires: string | undefined;
  readonly date: string | undefined;
}

export interface CacheBounds {
  /** Seconds. */
  readonly min: number;
  readonly max: number;
}

function maxAge(cacheControl: string): number | undefined {
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
  const value = directives.find((d) => d.startsWith('max-age='))?.slice('max-age='.length);
  if (value === undefined) return undefined;
  return /^"?\d+"?$/.test(value) ? Number(value.replaceAll('"', '')) : 0;
}

function fromExpires(expires: string, date: string | undefined, now: number): number {
  const at = Date.parse(expires);
  // RFC 9111 §5.3: an invalid Expires (such as "0") means already expired.
  if (Number.isNaN(at)) return 0;
  const base = date === undefined || Number.isNaN(Date.parse(date)) ? now * 1000 : Date.parse(date);
  return Math.floor((at - base) / 1000);
}

/** Seconds to keep the document, within `bounds`. */
export function cacheLifetime(headers: CacheHeaders, bounds: CacheBounds, now: number): number {
  const fromHeaders =
    (headers.cacheControl === undefined ? undefined : maxAge(headers.cacheControl)) ??
    (headers.expires === undefined ? undefined : fromExpires(headers.expires, headers.date, now)) ??
    bounds.min;
  return Math.min(bounds.max, Math.max(bounds.min, fromHeaders));
}
