/**
 * The authorization request's rules (docs/decisions.md "Authorization endpoint"), as pure functions. First the client and redirect
 * URI: when either is wrong the person must not be sent anywhere (RFC 6749 §4.1.2.1), so the
 * answer is a page. After that every error is reported to the verified redirect URI.
 */
import type { OAuthErrorCode } from '../../errors.js';
import type { Client } from '../../storage/schema.js';
import { isValidCodeChallenge } from '../pkce.js';
import { matchRedirectUri } from '../redirect-uri.js';
import { resolveResource } from '../resource.js';
import { parseRequestedScope } from '../scopes.js';
import type { AuthorizeParam, RequestParams } from './params.js';

export interface PageProblem {
  readonly title: string;
  readonly message: string;
  readonly code: 'invalid_client' | 'invalid_request' | 'rate_limited';
  /** 400 unless said otherwise (429 with Retry-After for a rate limit). */
  readonly status?: 400 | 429;
  readonly retryAfter?: number;
}

/**
 * How a client identified by a metadata document is presented and kept (docs/decisions.md "Client ID Metadata Documents"): the host of its
 * client_id URL, whether the operator trusts it, and the `clients` row to write (the document is
 * new or changed) before a consent or code refers to it — written only then, so a refused request
 * changes nothing.
 */
export interface MetadataIdentity {
  readonly host: string;
  readonly trusted: boolean;
  readonly save: Client | undefined;
}

export type Target =
  | { readonly client: Client; readonly redirectUri: string; readonly metadata?: MetadataIdentity }
  | { readonly problem: PageProblem };

export const problem = (title: string, message: string, code: PageProblem['code'] = 'invalid_request') => ({
  problem: { title, message, code },
});

/** What is wrong with client_id and redirect_uri as sent, before any client is looked up. */
export function targetParamsProblem(params: RequestParams): Target | undefined {
  if (params.repeated.includes('client_id'))
    return problem(
      'Invalid request',
      'The request names more than one app (client_id was sent more than once).',
    );
  if (params.repeated.includes('redirect_uri'))
    return problem(
      'Invalid request',
      'The request names more than one return address (redirect_uri was sent more than once).',
    );
  if (params.values.client_id === undefined)
    return problem(
      'Invalid request',
      'The request does not say which app is asking: the client_id parameter is missing.',
    );
  if (params.values.redirect_uri === undefined)
    return problem(
      'Invalid request',
      'The request does not say where to return to: the redirect_uri parameter is missing.',
    );
  return undefined;
}

/** Checks client_id and redirect_uri; `client` is the row client_id names, if any. */
export function checkTarget(
  params: RequestParams,
  client: Client | undefined,
  redirectUris: readonly string[],
): Target {
  const early = targetParamsProblem(params);
  if (early) return early;
  if (!client)
    return problem(
      'Unknown app',
      'The app that sent you here is not registered with this service (unknown client_id).',
      'invalid_client',
    );
  if (client.disabled)
    return problem(
      'App disabled',
      'The app that sent you here has been disabled by the operators of this service.',
      'invalid_client',
    );
  const requested = params.values.redirect_uri!;
  if (client.kind === 'metadata_document' || !matchRedirectUri(requested, redirectUris, client.kind)) {
    return problem(
      'Invalid return address',
      'The return address in the request (redirect_uri) is not one registered for this app, so you were not sent back to it.',
    );
  }
  return { client, redirectUri: requested };
}

export type PromptValue = 'none' | 'login' | 'consent';

export interface AuthorizationRequest {
  readonly scopes: string[];
  readonly resource: string;
  readonly codeChallenge: string;
  readonly state: string | undefined;
  readonly nonce: string | null;
  /** RFC 9449 §10: the DPoP key thumbprint the code is bound to. */
  readonly dpopJkt: string | undefined;
  readonly prompt: ReadonlySet<PromptValue>;
  /** OIDC max_age in seconds, when sent. */
  readonly maxAge: number | undefined;
}

export interface RequestError {
  readonly error: OAuthErrorCode;
  readonly description: string;
}

const MAX_NONCE = 512;
const PROMPTS: readonly PromptValue[] = ['none', 'login', 'consent'];

function repeatedError(repeated: readonly AuthorizeParam[]): RequestError | undefined {
  const name = repeated[0];
  if (name === undefined) return undefined;
  if (name === 'resource')
    return {
      error: 'invalid_target',
      description: 'send the resource parameter once; this server protects one API',
    };
  return {
    error: 'invalid_request',
    description: `the ${name} parameter was sent more than once; send it once (RFC 6749 §3.1)`,
  };
}

function protocolError(v: RequestParams['values']): RequestError | undefined {
  if (v.request !== undefined || v.request_uri !== undefined) {
    return {
      error: 'invalid_request',
      description:
        'request objects (request, request_uri) are not supported; send the parameters in the query string',
    };
  }
  if (v.response_type === undefined)
    return {
      error: 'invalid_request',
      description: 'the response_type parameter is missing; send response_type=code',
    };
  if (v.response_type !== 'code')
    return {
      error: 'unsupported_response_type',
      description: `response_type ${JSON.stringify(v.response_type)} is not supported; send response_type=code`,
    };
  if (v.response_mode !== undefined && v.response_mode !== 'query')
    return {
      error: 'invalid_request',
      description: 'only response_mode=query is supported; leave response_mode out',
    };
  if (v.code_challenge_method !== 'S256') {
    return {
      error: 'invalid_request',
      description:
        v.code_challenge_method === undefined
          ? 'PKCE is required: send code_challenge_method=S256 and a code_challenge'
          : `code_challenge_method ${JSON.stringify(v.code_challenge_method)} is not supported; send code_challenge_method=S256`,
    };
  }
  if (v.code_challenge === undefined)
    return {
      error: 'invalid_request',
      description:
        'PKCE is required: the code_challenge parameter is missing; send BASE64URL(SHA256(code_verifier))',
    };
  if (!isValidCodeChallenge(v.code_challenge))
    return {
      error: 'invalid_request',
      description:
        'code_challenge is malformed; send BASE64URL(SHA256(code_verifier)) without padding (43 characters)',
    };
  return undefined;
}

function parsePrompt(value: string | undefined): ReadonlySet<PromptValue> | RequestError {
  const values = (value ?? '').split(' ').filter((p) => p !== '');
  const unknown = values.find((p) => !PROMPTS.includes(p as PromptValue));
  if (unknown !== undefined)
    return {
      error: 'invalid_request',
      description: `prompt value ${JSON.stringify(unknown)} is not supported; use none, login or consent`,
    };
  // OIDC Core §3.1.2.1: none with any other value is an error.
  if (values.includes('none') && values.length > 1)
    return {
      error: 'invalid_request',
      description: 'prompt=none cannot be combined with other prompt values',
    };
  return new Set(values as PromptValue[]);
}

function parseMaxAge(value: string | undefined): number | undefined | RequestError {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value))
    return { error: 'invalid_request', description: 'max_age must be a whole number of seconds' };
  return Number(value);
}

const isError = (x: unknown): x is RequestError => typeof x === 'object' && x !== null && 'error' in x;

/** Validates everything but the client and redirect URI; returns the request or the error to redirect with. */
export function validateRequest(params: RequestParams, issuer: string): AuthorizationRequest | RequestError {
  const v = params.values;
  const early = repeatedError(params.repeated) ?? protocolError(v);
  if (early) return early;
  const scope = parseRequestedScope(v.scope);
  if ('error' in scope) return { error: 'invalid_scope', description: scope.error };
  const resource = resolveResource(v.resource, issuer);
  if ('error' in resource) return { error: 'invalid_target', description: resource.error };
  const prompt = parsePrompt(v.prompt);
  if (isError(prompt)) return prompt;
  const maxAge = parseMaxAge(v.max_age);
  if (isError(maxAge)) return maxAge;
  if (v.nonce !== undefined && v.nonce.length > MAX_NONCE)
    return { error: 'invalid_request', description: `nonce is longer than ${MAX_NONCE} characters` };
  // RFC 9449 §10: a SHA-256 JWK thumbprint is 32 bytes, base64url without padding (43 characters).
  if (v.dpop_jkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(v.dpop_jkt)) {
    return {
      error: 'invalid_request',
      description:
        'dpop_jkt is malformed; send the base64url SHA-256 JWK thumbprint (RFC 7638) of the DPoP key, 43 characters',
    };
  }
  return {
    scopes: scope.scopes,
    resource: resource.resource,
    codeChallenge: v.code_challenge!,
    state: v.state,
    nonce: v.nonce ?? null,
    dpopJkt: v.dpop_jkt,
    prompt,
    maxAge,
  };
}

export function isRequestError(x: AuthorizationRequest | RequestError): x is RequestError {
  return 'error' in x;
}
