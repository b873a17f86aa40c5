/**
 * The authorization endpoint's OpenAPI description. Parameters are documented but not enforced
 * by the schema validator: a bad authorization request must be answered with an error page or
 * an error redirect (RFC 6749 §4.1.2.1), never with JSON, so validate.ts checks them itself.
 */
import type { RouteShorthandOptions } from 'fastify';
import { documentOnly } from '../../http/form-fields.js';

const str = (description: string) => ({ type: 'string', description });

const PARAMETERS = {
  type: 'object',
  properties: {
    response_type: str('`code`.'),
    client_id: str('The client identifier from registration.'),
    redirect_uri: str("One of the client's redirect URIs; for loopback URIs any port (RFC 8252 §7.3)."),
    scope: str(
      'Space-separated scope names (scopes_supported in the metadata lists what exists). Without it: `openid profile account:read`.',
    ),
    state: str('Opaque value returned unchanged.'),
    code_challenge: str('PKCE challenge: BASE64URL(SHA256(code_verifier)).'),
    code_challenge_method: str('`S256`.'),
    resource: str('RFC 8707 resource indicator; the issuer.'),
    nonce: str('OIDC nonce, carried into the ID token.'),
    dpop_jkt: str(
      'RFC 9449 §10: the SHA-256 JWK thumbprint (RFC 7638, base64url) of the DPoP key; the code is then redeemed only with a DPoP proof of that key.',
    ),
    prompt: str('`none`, `login` or `consent` (space-separated; `none` alone).'),
    max_age: str('Maximum seconds since the person last signed in.'),
  },
  additionalProperties: true,
} as const;

const RESPONSES = {
  200: {
    description: 'An HTML page: sign in or consent.',
    content: { 'text/html': { schema: { type: 'string' } } },
  },
  302: {
    description:
      "Redirect to the client's redirect_uri with `code`, `state` and `iss`, or `error`, `error_description`, `state` and `iss`.",
  },
  400: {
    description: "HTML error page: unknown client or a redirect URI that is not the client's (no redirect).",
    content: { 'text/html': { schema: { type: 'string' } } },
  },
} as const;

export const AUTHORIZE_SCHEMA: { get: RouteShorthandOptions; post: RouteShorthandOptions } = {
  get: {
    schema: {
      tags: ['oauth'],
      summary: 'Authorization endpoint (browser): sign in, consent, redirect with a code',
      querystring: PARAMETERS,
      response: RESPONSES,
    },
    validatorCompiler: documentOnly,
  },
  post: {
    schema: {
      tags: ['oauth'],
      summary:
        'Authorization endpoint with a form-encoded request (OIDC Core §3.1.2.1), and the sign-in and consent forms',
      body: PARAMETERS,
      response: { ...RESPONSES, 303: RESPONSES[302] },
    },
    validatorCompiler: documentOnly,
  },
};
