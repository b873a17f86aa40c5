/**
 * Shared reading of OAuth form requests (token, revocation, introspection): the body must be
 * `application/x-www-form-urlencoded` (RFC 6749 §3.2), a parameter must not repeat (§3.1), an
 * empty parameter counts as omitted (§3.1), and every failure is an OAuth error body (the routes
 * set `config: { errorStyle: 'oauth-form' }`, src/http/error-handler.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../errors.js';
import { FORM_HINT } from '../http/error-handler.js';
import { MAX_PARAMETER_LENGTH, overlongParameter } from '../limits.js';
import type { ClientCredentials } from './client-auth.js';

/** The media type, in any case, alone or before its parameters (Node has trimmed the value). */
const FORM_TYPE = /^application\/x-www-form-urlencoded[\t ]*(?:;|$)/i;

function formProblem(request: FastifyRequest): OAuthError | undefined {
  const type = request.headers['content-type'];
  if (type === undefined || !FORM_TYPE.test(type)) {
    return new OAuthError('invalid_request', `unsupported Content-Type; ${FORM_HINT}`);
  }
  const overlong = overlongParameter(request.body);
  if (overlong !== undefined) {
    return new OAuthError(
      'invalid_request',
      `parameter "${overlong.slice(0, 64)}" is longer than ${MAX_PARAMETER_LENGTH} characters; send the value the server issued`,
    );
  }
  return undefined;
}

/** A preValidation hook (callback style: an async hook costs a promise per request). */
export function requireForm(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  done(formProblem(request));
}

/** RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted." */
export function param(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Only the Authorization header as a single string (a repeated header is still an attempt). */
function authorizationHeader(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  return Array.isArray(header) ? header.join(',') : header;
}

/** What a token, revocation or introspection request presents to authenticate its client. */
export function clientCredentials(
  request: Pick<FastifyRequest, 'headers'> & {
    readonly body: { client_id?: string; client_secret?: string };
  },
): ClientCredentials {
  return {
    clientId: param(request.body.client_id),
    clientSecret: param(request.body.client_secret),
    authorization: authorizationHeader(request),
  };
}
