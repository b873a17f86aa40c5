/**
 * The error handler of the browser pages (sign-in, authorization, Connected apps): a database
 * fault is a page a person can read — 503 with Retry-After — instead of a JSON body; every
 * other error is answered as everywhere else (http/error-handler.ts).
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { logServerFault, sendWireError, toWireError } from '../http/error-handler.js';
import { noteErrorCode } from '../http/logging.js';
import { errorPage } from './error.page.js';
import { sendPage } from './respond.js';

export function installPageErrorHandler(pages: FastifyInstance): void {
  pages.setErrorHandler((error: FastifyError, request, reply) => {
    const wire = toWireError(error, request);
    if (wire.status >= 500) logServerFault(request, error, 'request failed');
    if (wire.code !== 'temporarily_unavailable') return sendWireError(reply, wire);
    reply.headers(wire.headers);
    noteErrorCode(reply, wire.code);
    return sendPage(
      reply,
      wire.status,
      errorPage({
        title: 'Try again in a moment',
        message:
          'The service is temporarily unavailable: it cannot reach its database. Try again in a moment.',
        code: wire.code,
        requestId: request.id,
      }),
    );
  });
}
