import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DISPLAY_TEXT_PATTERN, displayTextProblem } from '../display-text.js';
import { ApiError, OAuthError, type OAuthErrorCode, WireError } from '../errors.js';
import { MAX_PATH_SEGMENT_LENGTH } from '../limits.js';
import { URL_FIELD_RULES } from '../school/url-fields.js';
import { type UnavailableReason, whyUnavailable } from '../storage/unavailable.js';
import { REQUEST_TIMED_OUT, timedOutSockets } from './client-error.js';
import { noteErrorCode } from './logging.js';

/** PostgreSQL SQLSTATE 22021: character_not_in_repertoire. */
const PG_NUL_IN_TEXT = '22021';

/** An OAuth error code, or one of the API codes a route may prefer for a bad parameter. */
export type ValidationErrorCode = OAuthErrorCode | 'not_found' | 'forbidden' | 'conflict';

/**
 * `oauth-form`: the OAuth endpoints that take form posts (token, revocation, introspection) answer
 * every failure before their handler as an OAuth error (RFC 6749 §5.2): a repeated parameter is
 * named (§3.1), a body of another media type is invalid_request, never 415 (§3.2).
 * `registration`: dynamic client registration answers in RFC 7591 §3.2.2's vocabulary only.
 */
export type ErrorStyle = 'oauth-form' | 'registration';

/** Route options read by the error handler. */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error code a schema-validation failure answers with on this route (default invalid_request). */
    validationErrorCode?: ValidationErrorCode;
    /** How this route words the errors raised before its handler (default: as toWireError does). */
    errorStyle?: ErrorStyle;
  }
  interface FastifyInstance {
    /** Where the database is (a file, or host/database), for the log line of a database fault. */
    databaseLabel: string;
  }
}

/** What the client is told, how long it should wait, and what the operator reads in the log. */
const UNAVAILABLE: Readonly<
  Record<UnavailableReason, { description: string; retryAfter: number; log: (where: string) => string }>
> = {
  unreachable: {
    description: 'the service cannot reach its database right now; retry after the Retry-After interval',
    retryAfter: 5,
    log: (where) => `database unreachable (${where}): answering 503 until it is back`,
  },
  timeout: {
    description: 'the database did not answer in time; retry after the Retry-After interval',
    retryAfter: 5,
    log: (where) => `database did not answer within DATABASE_TIMEOUT (${where}): answered 503`,
  },
  busy: {
    description: 'the database is busy; retry after the Retry-After interval',
    retryAfter: 1,
    log: (where) => `database busy or locked (${where}): answered 503`,
  },
  disk_full: {
    description: 'the service cannot store anything right now; retry after the Retry-After interval',
    retryAfter: 30,
    log: (where) =>
      `the disk holding the database is full (${where}): writes answer 503 until space is freed`,
  },
  io_error: {
    description: 'the service cannot write to its storage right now; retry after the Retry-After interval',
    retryAfter: 30,
    log: (where) => `I/O error on the disk holding the database (${where}): answered 503`,
  },
};

/**
 * RFC 6749 §4.1.2.1's temporarily_unavailable (also the JSON error of every other endpoint), for
 * a database fault a retry can outlive.
 */
export function unavailableError(reason: UnavailableReason): OAuthError {
  const { description, retryAfter } = UNAVAILABLE[reason];
  return new OAuthError('temporarily_unavailable', description, 503, { 'retry-after': String(retryAfter) });
}

/** The log line of an answer ≥ 500: a database fault says which and where; anything else its error. */
export function logServerFault(request: FastifyRequest, error: unknown, message: string): void {
  const reason = whyUnavailable(error);
  if (reason)
    request.log.error({ err: error, reason }, UNAVAILABLE[reason].log(request.server.databaseLabel));
  else request.log.error({ err: error }, message);
}

/** The value a validation error points at (JSON pointer into the validated part). */
function valueAt(root: unknown, instancePath: string): unknown {
  let value = root;
  for (const key of instancePath.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value;
}

function describeValidation(error: FastifyError, request: FastifyRequest): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const part = error.validationContext ?? 'request';
  const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const { params } = first;
  if (first.keyword === 'pattern' && params.pattern === DISPLAY_TEXT_PATTERN) {
    const value = valueAt(request[part as 'body' | 'query' | 'params'], first.instancePath);
    const problem = typeof value === 'string' && displayTextProblem(`field "${path}"`, value);
    if (problem) return problem;
  }
  const urlRule = first.keyword === 'format' ? URL_FIELD_RULES[String(params.format)] : undefined;
  if (urlRule) return `field "${path}" ${urlRule}`;
  if (first.keyword === 'required')
    return `${part} is missing the required field "${String(params.missingProperty)}"`;
  if (first.keyword === 'additionalProperties') {
    return `${part} has the unknown field "${String(params.additionalProperty)}"; remove it`;
  }
  if (first.keyword === 'type' && params.type === 'string' && path && part !== 'body') {
    return `${part} parameter "${path}" must be sent once, as a single string`;
  }
  const field = path ? `field "${path}"` : part;
  return `${field} ${first.message ?? 'is invalid'}`;
}

/** Maps Fastify's own errors (parsing, limits, validation) to our wire errors. */
export function toWireError(error: FastifyError, request: FastifyRequest): WireError {
  if (error instanceof WireError) return error;
  // The body stopped arriving and REQUEST_TIMEOUT answered 408 on the socket (client-error.ts).
  if (timedOutSockets.has(request.raw.socket))
    return new OAuthError('invalid_request', REQUEST_TIMED_OUT, 408);
  if (error.validation) {
    const code = request.routeOptions.config?.validationErrorCode ?? 'invalid_request';
    const description = describeValidation(error, request);
    return code === 'not_found' || code === 'forbidden' || code === 'conflict'
      ? new ApiError(code, description, 400)
      : new OAuthError(code, description, 400);
  }
  switch (error.code) {
    // PostgreSQL refuses U+0000 in text ("invalid byte sequence … 0x00"); SQLite stores it. The
    // value came from the client, the statement did not run, so it is a bad request on both.
    case PG_NUL_IN_TEXT:
      return new OAuthError('invalid_request', 'a parameter contains a NUL character (U+0000); remove it');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('payload_too_large', 'the request body is too large; send a smaller body', 413);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'unsupported_media_type',
        `unsupported Content-Type "${request.headers['content-type'] ?? ''}"; see /openapi.json for the accepted type`,
        415,
      );
    case 'FST_ERR_BAD_URL':
      return new OAuthError(
        'invalid_request',
        'the URL path is not valid percent-encoded UTF-8; encode each reserved or non-ASCII byte as %XX',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new OAuthError(
        'invalid_request',
        `a path segment is longer than ${MAX_PATH_SEGMENT_LENGTH} characters; no id or slug is that long`,
        414,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new OAuthError('invalid_request', 'the JSON body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new OAuthError('invalid_request', 'the body is not valid JSON; send a JSON object');
  }
  if (error.statusCode === 429) {
    return new ApiError(
      'rate_limited',
      'too many requests; wait and retry after the Retry-After interval',
      429,
    );
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Any other client fault Fastify detects (bad encoding, malformed URL, bad header): never a 5xx.
    return new OAuthError(
      'invalid_request',
      `the request could not be read: ${error.message}`,
      error.statusCode,
    );
  }
  const unavailable = whyUnavailable(error);
  if (unavailable) return unavailableError(unavailable);
  return new ApiError('server_error', 'an unexpected error occurred; the request was not carried out', 500);
}

/** What every failure of an OAuth form request says it wants (RFC 6749 §3.2). */
export const FORM_HINT = 'send the parameters as an application/x-www-form-urlencoded body';

/** toWireError in the words of an `oauth-form` route. */
function oauthFormError(error: FastifyError, wire: WireError): WireError {
  if (error instanceof WireError) return error;
  const first = error.validation?.[0];
  // The body schemas take each parameter as a string: a string array is a repeated parameter.
  if (first?.keyword === 'type' && first.instancePath !== '') {
    const name = first.instancePath.slice(1);
    return new OAuthError(
      'invalid_request',
      `parameter "${name}" was sent more than once; send it once (RFC 6749 §3.1)`,
    );
  }
  if (wire.status === 415) return new OAuthError('invalid_request', `${wire.description}; ${FORM_HINT}`);
  return wire;
}

/** What every failure of a registration request says it wants (RFC 7591 §3.1). */
export const JSON_ONLY =
  'send the registration as a JSON object with Content-Type: application/json (RFC 7591 §3.1)';

/**
 * toWireError in the words of the `registration` route. RFC 7591 §3.2.2 names the registration
 * errors; a request we cannot read is answered with invalid_client_metadata too (not
 * invalid_request or 415), so clients see one error vocabulary.
 */
function registrationError(error: FastifyError, wire: WireError): WireError {
  if (error instanceof WireError) return error;
  const first = error.validation?.[0];
  if (first) {
    const aboutRedirects =
      first.instancePath.startsWith('/redirect_uris') || first.params.missingProperty === 'redirect_uris';
    // docs/decisions.md "Registration": missing, empty, non-array or more than 10 redirect_uris → invalid_redirect_uri.
    return new OAuthError(
      aboutRedirects ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      wire.description,
    );
  }
  if (wire.status === 400 || wire.status === 415) {
    return new OAuthError('invalid_client_metadata', `${wire.description}; ${JSON_ONLY}`);
  }
  return wire;
}

const STYLES: Readonly<Record<ErrorStyle, (error: FastifyError, wire: WireError) => WireError>> = {
  'oauth-form': oauthFormError,
  registration: registrationError,
};

/** The error a route answers: toWireError, in the route's errorStyle. */
function routeWireError(error: FastifyError, request: FastifyRequest): WireError {
  const wire = toWireError(error, request);
  const style = request.routeOptions.config?.errorStyle;
  return style === undefined ? wire : STYLES[style](error, wire);
}

export function sendWireError(reply: FastifyReply, error: WireError): FastifyReply {
  noteErrorCode(reply, error.code);
  return reply
    .code(error.status)
    .headers({ 'cache-control': 'no-store', ...error.headers })
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(error.toJSON()));
}

/** `databaseLabel` names the database in the log lines of database faults (never a password). */
export function installErrorHandlers(app: FastifyInstance, databaseLabel: string): void {
  app.decorate('databaseLabel', databaseLabel);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const wire = routeWireError(error, request);
    if (wire.status >= 500) logServerFault(request, error, 'request failed');
    return sendWireError(reply, wire);
  });
  app.setNotFoundHandler((request, reply) =>
    sendWireError(
      reply,
      new ApiError(
        'not_found',
        `no route ${request.method} ${request.url.split('?')[0]}; see /openapi.json`,
        404,
      ),
    ),
  );
}
