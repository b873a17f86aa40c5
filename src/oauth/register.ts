/**
 * POST /api/oauth/register — dynamic client registration (RFC 7591), open to loopback clients
 * only (docs/decisions.md "What the customer's interface description fixes"): parse → validate (client-metadata.ts) → store → 201 with the metadata.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditInput, auditRow, auditWritten } from '../audit/audit.js';
import type { AppContext } from '../context.js';
import { mintSecret, randomId } from '../crypto/tokens.js';
import { DISPLAY_TEXT_PATTERN } from '../display-text.js';
import { OAuthError } from '../errors.js';
import { JSON_ONLY } from '../http/error-handler.js';
import { PATHS } from '../paths.js';
import type { EndpointLimits } from '../rate-limit/endpoint-limits.js';
import type { Client } from '../storage/schema.js';
import { type ClientMetadata, MAX_REDIRECT_URIS, validateRegistration } from './client-metadata.js';
import { NO_STORE, OAuthErrorBody } from './wire-schemas.js';

// Every string of the metadata may be shown to a person (consent, Connected apps, client list).
const Text = (description: string, maxLength = 2000) =>
  Type.String({ description, maxLength, pattern: DISPLAY_TEXT_PATTERN });
const Uri = (description: string) => Text(description);

const RegistrationBody = Type.Object(
  {
    redirect_uris: Type.Array(Text('Loopback redirect URI, e.g. http://127.0.0.1:8080/callback'), {
      minItems: 1,
      maxItems: MAX_REDIRECT_URIS,
      description:
        'Loopback redirect URIs: http://127.0.0.1:<port>/<path>, http://[::1]:<port>/<path> or http://localhost:<port>/<path>',
    }),
    client_name: Type.Optional(Text('Human-readable client name shown on the consent page', 200)),
    application_type: Type.Optional(Type.String({ description: '"native" (default) for loopback clients' })),
    token_endpoint_auth_method: Type.Optional(
      Type.String({
        description:
          '"none" (public client, default), "client_secret_basic" or "client_secret_post" (confidential client: a client_secret is issued, usable with either method)',
      }),
    ),
    grant_types: Type.Optional(
      Type.Array(Type.String(), { description: 'Subset of authorization_code, refresh_token' }),
    ),
    response_types: Type.Optional(Type.Array(Type.String(), { description: '["code"]' })),
    scope: Type.Optional(Text('Space-separated scopes the client intends to use')),
    client_uri: Type.Optional(Uri('Home page of the client')),
    logo_uri: Type.Optional(Uri('Logo of the client')),
    tos_uri: Type.Optional(Uri('Terms of service of the client')),
    policy_uri: Type.Optional(Uri('Privacy policy of the client')),
    contacts: Type.Optional(Type.Array(Text('Contact email', 320), { maxItems: 10 })),
    software_id: Type.Optional(Text('Identifier of the client software', 200)),
    software_version: Type.Optional(Text('Version of the client software', 200)),
    dpop_bound_access_tokens: Type.Optional(
      Type.Boolean({
        description:
          'RFC 9449 §5.2: true when every token request of this client carries a DPoP proof; it then never gets a Bearer token',
      }),
    ),
    id_token_signed_response_alg: Type.Optional(
      Type.String({
        description: 'Algorithm of the ID tokens: "RS256" (default), "ES256" (P-256) or "EdDSA" (Ed25519)',
      }),
    ),
  },
  { additionalProperties: true, description: 'Client metadata (RFC 7591 §2)' },
);

const RegistrationResponse = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer({ description: 'Epoch seconds' }),
    client_secret: Type.Optional(
      Type.String({ description: 'Only for client_secret_basic and client_secret_post; shown once' }),
    ),
    client_secret_expires_at: Type.Optional(Type.Integer({ description: '0: never expires' })),
    client_name: Type.Optional(Type.String()),
    redirect_uris: Type.Array(Type.String()),
    application_type: Type.String(),
    token_endpoint_auth_method: Type.String(),
    grant_types: Type.Array(Type.String()),
    response_types: Type.Array(Type.String()),
    scope: Type.Optional(Type.String()),
    client_uri: Type.Optional(Type.String()),
    logo_uri: Type.Optional(Type.String()),
    tos_uri: Type.Optional(Type.String()),
    policy_uri: Type.Optional(Type.String()),
    contacts: Type.Optional(Type.Array(Type.String())),
    software_id: Type.Optional(Type.String()),
    software_version: Type.Optional(Type.String()),
    dpop_bound_access_tokens: Type.Optional(Type.Boolean()),
    id_token_signed_response_alg: Type.String(),
  },
  { description: 'The registered client (RFC 7591 §3.2.1)' },
);

function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json';
}

function clientRow(id: string, meta: ClientMetadata, secretHash: string | null, now: number): Client {
  return {
    id,
    kind: 'dynamic',
    name: meta.clientName ?? 'Unnamed application',
    application_type: meta.applicationType,
    redirect_uris: JSON.stringify(meta.redirectUris),
    token_endpoint_auth_method: meta.authMethod,
    secret_hash: secretHash,
    grant_types: JSON.stringify(meta.grantTypes),
    response_types: JSON.stringify(meta.responseTypes),
    metadata: JSON.stringify({
      ...(meta.clientName !== undefined ? { client_name: meta.clientName } : {}),
      ...meta.extra,
    }),
    id_token_signed_response_alg: meta.idTokenAlg,
    disabled: 0,
    created_at: now,
    last_used_at: null,
  };
}

export async function registerRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  limits: Pick<EndpointLimits, 'registration'>,
): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PATHS.registration,
    {
      config: { validationErrorCode: 'invalid_client_metadata', errorStyle: 'registration' },
      onRequest: [...limits.registration],
      schema: {
        tags: ['oauth'],
        summary: 'Register a client (RFC 7591); open to loopback redirect URIs only',
        body: RegistrationBody,
        response: { 201: RegistrationResponse, 400: OAuthErrorBody },
      },
      preValidation: async (request) => {
        if (!isJson(request)) {
          throw new OAuthError('invalid_client_metadata', `unsupported Content-Type; ${JSON_ONLY}`);
        }
      },
    },
    async (request, reply) => {
      const meta = validateRegistration(request.body, ctx.config.loopbackHosts);
      const now = ctx.now();
      const id = randomId('dyn_');
      const secret = meta.authMethod === 'none' ? undefined : mintSecret('clientSecret');
      const row = clientRow(id, meta, secret?.hash ?? null, now);
      const audit: AuditInput = {
        kind: 'client.registered',
        clientId: id,
        ip: request.ip,
        detail: {
          token_endpoint_auth_method: meta.authMethod,
          redirect_uris: meta.redirectUris.join(' '),
        },
      };
      await ctx.store.clients.register(row, auditRow(audit, now));
      auditWritten(audit.kind);
      request.log.info({ clientId: id }, 'client registered');
      return reply
        .code(201)
        .headers(NO_STORE)
        .send({
          client_id: id,
          client_id_issued_at: now,
          ...(secret ? { client_secret: secret.value, client_secret_expires_at: 0 } : {}),
          ...(meta.clientName !== undefined ? { client_name: meta.clientName } : {}),
          redirect_uris: meta.redirectUris,
          application_type: meta.applicationType,
          token_endpoint_auth_method: meta.authMethod,
          grant_types: meta.grantTypes,
          response_types: meta.responseTypes,
          id_token_signed_response_alg: meta.idTokenAlg,
          ...meta.extra,
        });
    },
  );
}
