/**
 * Request ids, sent back as `x-request-id` and written as `reqId` on the request's log lines: the
 * client's own `x-request-id` when it is safe to log (one request can then be followed across
 * proxies), else `<prefix>-<count>` — 12 random hex digits drawn when the process starts (so
 * instances and restarts differ) and a base-36 count of this process's requests.
 *
 * Not a secret and not meant to be unguessable: it only ties an answer to its log line. A random
 * UUID per request (36 characters to draw, format and check as a header value) cost a tenth of
 * the CPU of a metadata GET (docs/performance.md).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const GIVEN = /^[A-Za-z0-9._-]{1,64}$/;
const PREFIX = randomBytes(6).toString('hex');
let count = 0;

export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && GIVEN.test(given)) return given;
  return newRequestId();
}

/** A generated id, for an answer written without a parsed request (client-error.ts). */
export function newRequestId(): string {
  count += 1;
  return `${PREFIX}-${count.toString(36)}`;
}
