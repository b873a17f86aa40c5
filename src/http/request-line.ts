/**
 * Checks of the request line that apply to every route, the 404 handler included: the URL length
 * (414) and, for HTTP/1.1, the Host header (RFC 9112 §3.2: a request without one is answered 400;
 * Node's own check answers with an empty body, so it is turned off in server.ts and done here).
 */
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../errors.js';
import { MAX_URL_LENGTH, URL_TOO_LONG } from '../limits.js';

export function installRequestLineChecks(app: FastifyInstance): void {
  // Callback style: an async hook costs a promise and a microtask turn on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.length > MAX_URL_LENGTH) {
      done(new OAuthError('invalid_request', URL_TOO_LONG, 414));
    } else if (request.raw.httpVersion === '1.1' && !request.headers.host) {
      done(new OAuthError('invalid_request', 'an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)'));
    } else {
      done();
    }
  });
}
