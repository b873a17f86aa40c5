import { ApiError } from '../errors.js';

/** 429 with Retry-After (RFC 9110 §10.2.3, RFC 6585 §4). */
export function rateLimited(retryAfter: number, what: string): ApiError {
  return new ApiError(
    'rate_limited',
    `too many ${what}; retry after ${retryAfter} seconds (see the Retry-After header)`,
    429,
    { 'retry-after': String(retryAfter) },
  );
}
