/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3,
 * §3.2.1). Three methods (docs/clients.md "Clients"): `none` (a public client identifies itself with `client_id`),
 * `client_secret_basic` (HTTP Basic, an RFC 6749 §2.3.1 MUST) and `client_secret_post` (the
 * secret in the body). A confidential client may use either secret method, one per request.
 */
import type { AppContext } from '../context.js';
import { hashSecret, safeEqual } from '../crypto/tokens.js';
import { OAuthError } from '../errors.js';
import type { Client } from '../storage/schema.js';
import { CLIENT_AUTH_HINT, parseBasicAuthorization } from './basic-auth.js';
import { isBlockedMetadataClient } from './client-id-metadata/blocked.js';
import { isClientIdUrl } from './client-id-metadata/client-id-url.js';

export interface ClientCredentials {
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  /** The request's Authorization header (HTTP Basic client credentials), when sent. */
  readonly authorization: string | undefined;
}

/** What the request presents: a secret from the Basic header or the body, or none at all. */
interface Presented {
  readonly viaHeader: boolean;
  readonly clientId: string | undefined;
  /** The Basic password ('' when empty) or the body's client_secret. */
  readonly secret: string | undefined;
}

const CHALLENGE = { 'www-authenticate': 'Basic realm="schoolauth"' };

/**
 * RFC 6749 §5.2: invalid_client answers 401; when the client tried the Authorization header the
 * answer carries WWW-Authenticate (always the Basic challenge: the one scheme accepted here).
 */
function invalidClient(description: string, viaHeader: boolean): OAuthError {
  return new OAuthError('invalid_client', description, 401, viaHeader ? CHALLENGE : {});
}

/** RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request." */
function fromHeader(credentials: ClientCredentials, header: string): Presented {
  const basic = parseBasicAuthorization(header);
  if (basic.kind === 'malformed') throw invalidClient(basic.description, true);
  if (credentials.clientSecret !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'the request authenticates twice (HTTP Basic and client_secret in the body); use one method: drop client_secret from the body, or the Authorization header (RFC 6749 §2.3)',
    );
  }
  if (credentials.clientId !== undefined && credentials.clientId !== basic.clientId) {
    throw new OAuthError(
      'invalid_request',
      'client_id in the body differs from the client_id of the Authorization header; send one client_id (or leave it out of the body)',
    );
  }
  return { viaHeader: true, clientId: basic.clientId, secret: basic.clientSecret };
}

function presented(credentials: ClientCredentials): Presented {
  if (credentials.authorization !== undefined) return fromHeader(credentials, credentials.authorization);
  return { viaHeader: false, clientId: credentials.clientId, secret: credentials.clientSecret };
}

/**
 * A public client has no secret: it sends none, or HTTP Basic with an empty password (what
 * requests-oauthlib and x/oauth2 send for a client without a secret — it identifies, like
 * client_id in the body).
 */
function checkPublic(given: Presented): void {
  if (given.secret === undefined || (given.viaHeader && given.secret === '')) return;
  throw invalidClient(
    given.viaHeader
      ? 'this client is public (token_endpoint_auth_method "none"); send an empty Basic password, or client_id in the form body'
      : 'this client is public (token_endpoint_auth_method "none"); do not send client_secret',
    given.viaHeader,
  );
}

function checkSecret(client: Client, given: Presented): void {
  if (given.secret === undefined || given.secret === '') {
    throw invalidClient(
      'this client is confidential; send its client_secret as the Basic password (client_secret_basic) or in the form body (client_secret_post)',
      given.viaHeader,
    );
  }
  // Constant time: the stored value is the SHA-256 of the issued secret (docs/storage.md "Conventions").
  if (client.secret_hash === null || !safeEqual(hashSecret(given.secret), client.secret_hash)) {
    throw invalidClient('client authentication failed: the client_secret is wrong', given.viaHeader);
  }
}

/**
 * Authenticates the calling client or throws 401 invalid_client (400 invalid_request for two
 * methods). `judged` hears the verdict before anything is answered (the token endpoint counts its
 * rate limit there, docs/security.md "Rate limits"): the client when it proved itself with its
 * secret, else undefined — a public client (its client_id is public: naming it proves nothing),
 * and every failure (none named, unknown, disabled, a wrong or missing secret, credentials that
 * cannot be read). `read` reads the client row by id (findClient unless the caller reads more in
 * the same statement); every check below is made on what it answers.
 */
export async function authenticateClient(
  ctx: Pick<AppContext, 'store'>,
  credentials: ClientCredentials,
  judged?: (proven: Client | undefined) => void,
  read: (clientId: string) => Promise<Client | undefined> = (clientId) => ctx.store.clients.find(clientId),
): Promise<Client> {
  let client: Client;
  try {
    client = await identify(ctx, credentials, read);
  } catch (error) {
    // An unusable credential (not a database fault): a 429 from `judged` answers instead of it.
    if (error instanceof OAuthError) judged?.(undefined);
    throw error;
  }
  judged?.(client.token_endpoint_auth_method === 'none' ? undefined : client);
  return client;
}

async function identify(
  ctx: Pick<AppContext, 'store'>,
  credentials: ClientCredentials,
  read: (clientId: string) => Promise<Client | undefined>,
): Promise<Client> {
  const given = presented(credentials);
  if (given.clientId === undefined) {
    throw invalidClient(`client_id is missing; ${CLIENT_AUTH_HINT}`, false);
  }
  const found = await read(given.clientId);
  const usable = found && found.disabled !== 1 && !(await isBlockedMetadataClient(ctx.store, found));
  const client = usable ? found : undefined;
  if (!client) {
    throw invalidClient(
      isClientIdUrl(given.clientId)
        ? 'no valid metadata document is known for this client_id URL, or it was disabled or blocked; start with an authorization request, where the document is fetched and checked'
        : 'the client is not known or disabled; register the client again',
      given.viaHeader,
    );
  }
  if (client.token_endpoint_auth_method === 'none') checkPublic(given);
  else checkSecret(client, given);
  return client;
}
