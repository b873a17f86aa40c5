/**
 * Reading authorization request parameters from a query string or a form body (OIDC Core §3.1.2.1
 * allows both). Only the parameters this server understands are kept; RFC 6749 §3.1 says unknown
 * ones MUST be ignored, a parameter sent without a value is treated as omitted, and a parameter
 * MUST NOT be included more than once.
 */

export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'prompt',
  'max_age',
  'resource',
  'dpop_jkt',
  'response_mode',
  'request',
  'request_uri',
] as const;

export type AuthorizeParam = (typeof AUTHORIZE_PARAMS)[number];

export interface RequestParams {
  /** Each known parameter sent exactly once with a non-empty value. */
  readonly values: Readonly<Partial<Record<AuthorizeParam, string>>>;
  /** Known parameters sent more than once. */
  readonly repeated: readonly AuthorizeParam[];
}

export function readParams(source: unknown): RequestParams {
  const input = typeof source === 'object' && source !== null ? (source as Record<string, unknown>) : {};
  const values: Partial<Record<AuthorizeParam, string>> = {};
  const repeated: AuthorizeParam[] = [];
  for (const name of AUTHORIZE_PARAMS) {
    const value = input[name];
    if (Array.isArray(value)) {
      const given = value.filter((v) => v !== '');
      if (given.length > 1) repeated.push(name);
      else if (typeof given[0] === 'string') values[name] = given[0];
    } else if (typeof value === 'string' && value !== '') {
      values[name] = value;
    }
  }
  return { values, repeated };
}
