/**
 * The school API takes JSON bodies (docs/api.md), uploads multipart ones: a form-encoded body is
 * answered 415 saying what to send, instead of being parsed into the same object a JSON body
 * would give. The one exception is docs/api.md's: a form body carrying `access_token` (RFC 6750
 * §2.2) is parsed, so the guard refuses it with 400 `invalid_request` telling to use the header.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { FORM_BODY_LIMIT } from '../limits.js';

const FORM = 'application/x-www-form-urlencoded';

/** What a route takes instead: its OpenAPI `consumes` (uploads: multipart), JSON otherwise. */
function accepted(request: FastifyRequest): string {
  const consumes = (request.routeOptions.schema as { consumes?: readonly string[] } | undefined)?.consumes;
  return consumes?.[0] ?? 'application/json';
}

/** Replaces the form parser of `scope` (the /api/v1 plugin) with the refusal. */
export function refuseFormBodies(scope: FastifyInstance): void {
  scope.removeContentTypeParser(FORM);
  scope.addContentTypeParser(
    FORM,
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (request, body, done) => {
      const form = new URLSearchParams(body as string);
      if (form.has('access_token')) {
        done(null, Object.fromEntries(form));
        return;
      }
      const type = accepted(request);
      done(
        new ApiError(
          'unsupported_media_type',
          `the school API does not take form-encoded bodies; send the body as ${type === 'application/json' ? 'a JSON object' : type} with Content-Type: ${type}`,
          415,
        ),
        undefined,
      );
    },
  );
}
