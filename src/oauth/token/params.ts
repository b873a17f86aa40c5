/**
 * The token request's parameters (RFC 6749 §4.1.3, §6; RFC 7636 §4.5; RFC 8707 §2.2) and the
 * checks two grants share.
 */
import { type Static, Type } from '@sinclair/typebox';
import { OAuthError } from '../../errors.js';
import { resolveResource } from '../resource.js';

const Param = (description: string) => Type.Optional(Type.String({ description }));

/** The token request body: validated, typed (TokenParams) and published in /openapi.json. */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.String({
      description: '"authorization_code", "refresh_token" or "urn:ietf:params:oauth:grant-type:device_code"',
    }),
    code: Param('authorization_code: the code from the redirect'),
    redirect_uri: Param('authorization_code: the redirect_uri of the authorization request'),
    code_verifier: Param('authorization_code: the PKCE verifier (RFC 7636)'),
    client_id: Param('The client identifier (optional with HTTP Basic, where it must be the same)'),
    client_secret: Param('Confidential clients using client_secret_post (never together with HTTP Basic)'),
    refresh_token: Param('refresh_token: the refresh token'),
    device_code: Param('urn:ietf:params:oauth:grant-type:device_code: the device_code (RFC 8628 §3.4)'),
    scope: Param('refresh_token: a narrower scope (optional)'),
    // RFC 8707 allows the parameter more than once.
    resource: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String())], {
        description: 'RFC 8707 resource indicator; must be the resource of the authorization',
      }),
    ),
  },
  { additionalProperties: true },
);

export type TokenParams = Readonly<Static<typeof TokenRequest>>;

/** RFC 6749 §5.2: the grant (code or refresh token) is invalid, expired, revoked or not this client's. */
export const invalidGrant = (description: string): OAuthError => new OAuthError('invalid_grant', description);

/**
 * The one answer for every code this client cannot use (issue 19): unknown, expired, used,
 * revoked and another client's look alike, so the endpoint tells a guesser nothing.
 */
export const unusableCode = (): OAuthError =>
  invalidGrant(
    'the code is not valid for this client: it is unknown, expired, used or revoked, or was issued to another client; start a new authorization request',
  );

/** The one answer for every refresh token this client cannot use, whatever the reason (issue 19). */
export const unusableRefreshToken = (): OAuthError =>
  invalidGrant(
    'the refresh token is not valid for this client: it is unknown, expired, used or revoked, or was issued to another client; send the person through the authorization endpoint again',
  );

export function required(value: string | undefined, name: string, hint: string): string {
  if (value === undefined || value === '') {
    throw new OAuthError('invalid_request', `the parameter "${name}" is missing; ${hint}`);
  }
  return value;
}

/**
 * RFC 8707 §2.2: a resource on the token request may repeat or narrow the authorized one, never
 * change it. This server protects one resource, so every value must resolve to the bound one.
 */
export function checkResource(value: string | string[] | undefined, bound: string, issuer: string): void {
  const values = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  for (const v of values) {
    if (v === '') continue;
    const resolved = resolveResource(v, issuer);
    if ('error' in resolved) throw new OAuthError('invalid_target', resolved.error);
    if (resolved.resource !== bound) {
      throw new OAuthError(
        'invalid_target',
        `the grant is bound to the resource ${bound}; send that resource or leave it out`,
      );
    }
  }
}
