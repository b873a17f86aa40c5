/**
 * One error model for the wire: every error the service answers is `{error, error_description}`
 * with a status. Codes are a closed union so a typo cannot reach a client.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'access_denied'
  // RFC 8628 §3.5: the device_code grant's answers while polling.
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  | 'invalid_token'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'insufficient_scope'
  | 'server_error'
  | 'temporarily_unavailable';

export type ApiErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'forbidden'
  | 'conflict'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'rate_limited'
  | 'server_error';

export type ErrorCode = OAuthErrorCode | ApiErrorCode;

export abstract class WireError extends Error {
  abstract readonly code: ErrorCode;
  constructor(
    readonly status: number,
    readonly description: string,
    /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extra members of the JSON body, after `error` and `error_description`. */
    readonly fields: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }

  toJSON(): { error: ErrorCode; error_description: string } & Record<string, string> {
    return { error: this.code, error_description: this.description, ...this.fields };
  }
}

/** An OAuth 2.0 error (RFC 6749 §5.2 and friends). */
export class OAuthError extends WireError {
  constructor(
    readonly code: OAuthErrorCode,
    description: string,
    status = 400,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(status, description, headers);
    this.name = 'OAuthError';
  }
}

/** An error of the school API that is not about the bearer token. */
export class ApiError extends WireError {
  constructor(
    readonly code: ApiErrorCode,
    description: string,
    status: number,
    headers: Readonly<Record<string, string>> = {},
    fields: Readonly<Record<string, string>> = {},
  ) {
    super(status, description, headers, fields);
    this.name = 'ApiError';
  }
}

export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} was not found`, 404);
export const forbidden = (why: string): ApiError => new ApiError('forbidden', why, 403);
export const badRequest = (why: string): ApiError => new ApiError('invalid_request', why, 400);
