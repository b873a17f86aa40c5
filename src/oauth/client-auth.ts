/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3,
 * §3.2.1). Two methods exist (SPEC §4): `none` (public clients identify themselves with
 * `client_id`) and `client_secret_post` (confidential clients add `client_secret` in the body).
 */
import type { AppContext } from '../context.js';
import { hashSecret, safeEqual } from '../crypto/tokens.js';
import { OAuthError } from '../errors.js';
import { findClient } from '../storage/clients.repository.js';
import type { Client } from '../storage/schema.js';
import { isBlockedMetadataClient } from './client-id-metadata/blocked.js';
import { isClientIdUrl } from './client-id-metadata/client-id-url.js';

export interface ClientCredentials {
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  /** The request's Authorization header: no method here uses it. */
  readonly authorization: string | undefined;
}

/**
 * RFC 6749 §5.2: invalid_client answers 401. The WWW-Authenticate header is required only when
 * the client tried the Authorization header, and then names the scheme it used.
 */
function invalidClient(description: string, attemptedScheme?: string): OAuthError {
  const headers: Record<string, string> = attemptedScheme
    ? { 'www-authenticate': `${attemptedScheme} realm="schoolauth"` }
    : {};
  return new OAuthError('invalid_client', description, 401, headers);
}

const BODY_HINT = 'send client_id (and, for a confidential client, client_secret) in the form body';

/** Authenticates the calling client or throws 401 invalid_client. */
export async function authenticateClient(
  ctx: Pick<AppContext, 'db'>,
  credentials: ClientCredentials,
): Promise<Client> {
  if (credentials.authorization !== undefined) {
    const scheme = /^\s*([A-Za-z][A-Za-z0-9_-]*)/.exec(credentials.authorization)?.[1] ?? 'Basic';
    throw invalidClient(
      `this server does not accept client authentication in the Authorization header; ${BODY_HINT} (token_endpoint_auth_methods_supported: none, client_secret_post)`,
      scheme,
    );
  }
  const { clientId, clientSecret } = credentials;
  if (clientId === undefined) throw invalidClient(`client_id is missing; ${BODY_HINT}`);
  const client = await findClient(ctx.db, clientId);
  if (!client || client.disabled === 1 || (await isBlockedMetadataClient(ctx.db, client))) {
    throw invalidClient(
      isClientIdUrl(clientId)
        ? 'no valid metadata document is known for this client_id URL, or it was disabled or blocked; start with an authorization request, where the document is fetched and checked (SPEC §5a)'
        : 'the client is not known or disabled; register the client again',
    );
  }
  if (client.token_endpoint_auth_method === 'none') {
    // RFC 6749 §2.3: one authentication method per request; a public client has no secret.
    if (clientSecret !== undefined) {
      throw invalidClient(
        'this client is public (token_endpoint_auth_method "none"); do not send client_secret',
      );
    }
    return client;
  }
  if (clientSecret === undefined) {
    throw invalidClient('this client is confidential; send its client_secret in the form body');
  }
  if (client.secret_hash === null || !safeEqual(hashSecret(clientSecret), client.secret_hash)) {
    throw invalidClient('client authentication failed: the client_secret is wrong');
  }
  return client;
}
