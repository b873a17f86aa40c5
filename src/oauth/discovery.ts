/**
 * The three metadata documents (RFC 8414, OIDC Discovery 1.0, RFC 9728) and the JWKS. They are
 * built once from config and the scope catalogue and served as pre-serialised bytes.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { SIGNING_ALGS } from '../crypto/signing-key.js';
import { DPOP_SIGNING_ALGS } from '../dpop/algorithms.js';
import { PATHS } from '../paths.js';
import { GRANT_TYPES } from './client-metadata.js';
import { SCOPE_NAMES } from './scope-catalogue.js';

export const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'azp',
  'name',
  'preferred_username',
  'locale',
  'updated_at',
  'email',
  'email_verified',
] as const;

// RFC 6749 §2.3.1: HTTP Basic is a MUST for clients issued a secret; the body is allowed too.
const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'];

/**
 * RFC 8414 metadata. `client_id_metadata_document_supported` says whether https client_id URLs are
 * fetched as metadata documents (draft-ietf-oauth-client-id-metadata-document §6; docs/decisions.md "Client ID Metadata Documents").
 */
export function authorizationServerMetadata(issuer: string, clientIdMetadataDocuments = true) {
  return {
    issuer,
    authorization_endpoint: issuer + PATHS.authorization,
    token_endpoint: issuer + PATHS.token,
    device_authorization_endpoint: issuer + PATHS.deviceAuthorization,
    registration_endpoint: issuer + PATHS.registration,
    userinfo_endpoint: issuer + PATHS.userinfo,
    revocation_endpoint: issuer + PATHS.revocation,
    introspection_endpoint: issuer + PATHS.introspection,
    jwks_uri: issuer + PATHS.jwks,
    scopes_supported: [...SCOPE_NAMES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    authorization_response_iss_parameter_supported: true,
    // RFC 9449 §5.1: DPoP is offered to every client (docs/decisions.md "DPoP").
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
    client_id_metadata_document_supported: clientIdMetadataDocuments,
    service_documentation: issuer + PATHS.authMd,
    ui_locales_supported: ['en'],
  };
}

export function openidConfiguration(issuer: string, clientIdMetadataDocuments = true) {
  return {
    ...authorizationServerMetadata(issuer, clientIdMetadataDocuments),
    subject_types_supported: ['public'],
    // OIDC Discovery §3: RS256 must be listed; it is first, and the default (OIDC Core §2).
    id_token_signing_alg_values_supported: [...SIGNING_ALGS],
    claims_supported: [...CLAIMS_SUPPORTED],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: ['none', 'login', 'consent'],
  };
}

export function protectedResourceMetadata(issuer: string) {
  return {
    resource: issuer,
    resource_name: 'School platform API',
    authorization_servers: [issuer],
    scopes_supported: [...SCOPE_NAMES],
    bearer_methods_supported: ['header'],
    // RFC 9728 §2: DPoP-bound tokens are accepted beside bearer ones, not required.
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
    dpop_bound_access_tokens_required: false,
    resource_documentation: issuer + PATHS.authMd,
  };
}

const METADATA_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'public, max-age=300',
  'access-control-allow-origin': '*',
};
/**
 * The JWKS is cached for JWKS_MAX_AGE seconds (default 60): a rotated-in key is published that
 * long (plus the reload interval) before it signs, so a verifier's cached copy always knows it.
 */
export function jwksHeaders(maxAge: number): Record<string, string> {
  return { ...METADATA_HEADERS, 'cache-control': `public, max-age=${maxAge}` };
}

export async function discoveryRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const jwks = jwksHeaders(ctx.config.jwksMaxAge);
  // Pre-built bytes: no serialising, encoding or length counting per request.
  const documents: Array<[string, string, Buffer]> = [
    [
      PATHS.authorizationServerMetadata,
      'OAuth 2.0 Authorization Server Metadata (RFC 8414)',
      Buffer.from(
        JSON.stringify(authorizationServerMetadata(ctx.config.issuer, ctx.config.clientMetadata.enabled)),
      ),
    ],
    [
      PATHS.openidConfiguration,
      'OpenID Connect Discovery 1.0 document',
      Buffer.from(JSON.stringify(openidConfiguration(ctx.config.issuer, ctx.config.clientMetadata.enabled))),
    ],
    [
      PATHS.protectedResourceMetadata,
      'OAuth 2.0 Protected Resource Metadata (RFC 9728)',
      Buffer.from(JSON.stringify(protectedResourceMetadata(ctx.config.issuer))),
    ],
  ];
  for (const [url, summary, body] of documents) {
    app.get(
      url,
      {
        schema: {
          tags: ['discovery'],
          summary,
          response: { 200: { type: 'object', additionalProperties: true } },
        },
      },
      (_req, reply) => reply.headers(METADATA_HEADERS).send(body),
    );
  }
  app.get(
    PATHS.jwks,
    {
      schema: {
        tags: ['discovery'],
        summary: 'JSON Web Key Set: public keys that verify ID tokens',
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    (_req, reply) => reply.headers(jwks).send(ctx.keys.jwksBody()),
  );
}
