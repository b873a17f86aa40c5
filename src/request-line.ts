/**
 * Checks of the request line that apply to every route, the 404 handler included: the URL length
 * (414) and, for HTTP/1.1, the Host header (RFC 9112 §3.2: a request without one is answered 400;
 * Node's own check answers with an empty body, so it is turned off in app.ts and done here).
 */
import type { FastifyInstance } from 'fastify';
import { OAuthError } from './errors.js';
import { MAX_URL_LENGTH, URL_TOO_LONG } from './limits.js';

export function installRequestLineChecks(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.url.length > MAX_URL_LENGTH) {
      throw new OAuthError('invalid_request', URL_TOO_LONG, 414);
    }
    if (request.raw.httpVersion === '1.1' && !request.headers.host) {
      throw new OAuthError('invalid_request', 'an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)');
    }
  });
}
