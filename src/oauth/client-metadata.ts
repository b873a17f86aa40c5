/**
 * Client metadata of a dynamic registration (RFC 7591 §2), judged without HTTP: the redirect
 * URI policy, the two client types, and the grant and response types this server supports.
 */
import { DEFAULT_SIGNING_ALG, isSigningAlg, SIGNING_ALGS, type SigningAlg } from '../crypto/signing-key.js';
import { blankNameProblem } from '../display-text.js';
import { OAuthError } from '../errors.js';
import { isPrivateUseScheme, registrationRedirectUriProblem } from './redirect-uri.js';
import { parseScope } from './scopes.js';

export const MAX_REDIRECT_URIS = 10;
/** `none`: public; the two secret methods: confidential, and either may be used (docs/decisions.md "Registration"). */
export const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
/** RFC 8628 §3.4: the device authorization grant's grant_type. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT] as const;

/** A registration without grant_types gets these (the device grant only when asked for). */
const DEFAULT_GRANT_TYPES = ['authorization_code', 'refresh_token'];
export const APPLICATION_TYPES = ['native', 'web'] as const;

export type AuthMethod = (typeof AUTH_METHODS)[number];

/** What the registration request may carry; other members are ignored (RFC 7591 §2). */
export interface RegistrationRequest {
  readonly redirect_uris?: unknown;
  readonly client_name?: string;
  readonly application_type?: string;
  readonly token_endpoint_auth_method?: string;
  readonly grant_types?: readonly string[];
  readonly response_types?: readonly string[];
  readonly scope?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly tos_uri?: string;
  readonly policy_uri?: string;
  readonly contacts?: string[];
  readonly software_id?: string;
  readonly software_version?: string;
  readonly id_token_signed_response_alg?: string;
  /** RFC 9449 §5.2. */
  readonly dpop_bound_access_tokens?: unknown;
}

/** Metadata echoed back as registered, beyond the fields with their own columns. */
export type ExtraMetadata = Partial<
  Pick<
    RegistrationRequest,
    | 'scope'
    | 'client_uri'
    | 'logo_uri'
    | 'tos_uri'
    | 'policy_uri'
    | 'contacts'
    | 'software_id'
    | 'software_version'
  >
> & { readonly dpop_bound_access_tokens?: boolean };

export interface ClientMetadata {
  readonly clientName: string | undefined;
  readonly applicationType: (typeof APPLICATION_TYPES)[number];
  readonly redirectUris: string[];
  readonly authMethod: AuthMethod;
  readonly grantTypes: string[];
  readonly responseTypes: string[];
  /** Stored in a column of its own and always echoed (RFC 7591 §3.2.1: the registered value). */
  readonly idTokenAlg: SigningAlg;
  readonly extra: ExtraMetadata;
}

const metadataError = (description: string): OAuthError =>
  new OAuthError('invalid_client_metadata', description);

function redirectUris(value: unknown, loopbackHosts: readonly string[]): string[] {
  const hint = `send "redirect_uris" as an array of 1 to ${MAX_REDIRECT_URIS} loopback URIs such as "http://127.0.0.1:8080/callback"`;
  if (value === undefined)
    throw new OAuthError('invalid_redirect_uri', `"redirect_uris" is missing; ${hint}`);
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `"redirect_uris" is not an array of 1 to 10 URIs; ${hint}`);
  }
  const kept: string[] = [];
  let dropped: string | undefined;
  for (const uri of value) {
    if (typeof uri !== 'string') {
      throw new OAuthError('invalid_redirect_uri', `every redirect URI must be a string; ${hint}`);
    }
    const problem = registrationRedirectUriProblem(uri, loopbackHosts);
    if (!problem) kept.push(uri);
    // RFC 7591 §3.2.1 lets the server replace requested metadata: a private-use scheme URI (RFC
    // 8252 §7.1) beside loopback ones is left out of the registration, which echoes what it kept.
    else if (isPrivateUseScheme(uri)) dropped ??= problem;
    // docs/decisions.md "Redirect URIs": any other refused URI (https, another host, …) refuses the whole list.
    else throw new OAuthError('invalid_redirect_uri', problem);
  }
  if (kept.length === 0) throw new OAuthError('invalid_redirect_uri', dropped!);
  return [...new Set(kept)];
}

function grantTypes(value: readonly string[] | undefined): string[] {
  if (value === undefined) return [...DEFAULT_GRANT_TYPES];
  const unknown = value.filter((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unknown.length > 0) {
    throw metadataError(
      `grant type ${JSON.stringify(unknown[0])} is not supported; send grant_types as a subset of ${JSON.stringify(GRANT_TYPES)} or leave it out`,
    );
  }
  // RFC 7591 §2.1: response_type "code" needs the authorization_code grant.
  if (!value.includes('authorization_code')) {
    throw metadataError('grant_types must include "authorization_code" (the only way to obtain tokens here)');
  }
  return GRANT_TYPES.filter((g) => value.includes(g));
}

function responseTypes(value: readonly string[] | undefined): string[] {
  if (value === undefined) return ['code'];
  if (value.length === 0 || value.some((r) => r !== 'code')) {
    throw metadataError('response_types must be ["code"] (authorization code flow only) or left out');
  }
  return ['code'];
}

function optionalUri(name: string, value: string | undefined): void {
  if (value === undefined) return;
  let ok = false;
  try {
    const url = new URL(value);
    ok =
      (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  } catch {
    ok = false;
  }
  if (!ok) throw metadataError(`${name} must be an absolute http(s) URL without credentials`);
}

function extraMetadata(body: RegistrationRequest): ExtraMetadata {
  for (const name of ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const)
    optionalUri(name, body[name]);
  if (body.scope !== undefined) {
    const parsed = parseScope(body.scope);
    if ('error' in parsed) throw metadataError(`scope: ${parsed.error}`);
  }
  if (body.dpop_bound_access_tokens !== undefined && typeof body.dpop_bound_access_tokens !== 'boolean') {
    throw metadataError('dpop_bound_access_tokens must be true, false or left out (RFC 9449 §5.2)');
  }
  const extra: Record<string, unknown> = {};
  // Echoed only when true: false is the default, and what every other client has.
  if (body.dpop_bound_access_tokens === true) extra.dpop_bound_access_tokens = true;
  for (const key of [
    'scope',
    'client_uri',
    'logo_uri',
    'tos_uri',
    'policy_uri',
    'contacts',
    'software_id',
    'software_version',
  ] as const) {
    if (body[key] !== undefined) extra[key] = body[key];
  }
  return extra as ExtraMetadata;
}

/** The message that refuses an ID-token algorithm this server does not sign with. */
export const ID_TOKEN_ALG_PROBLEM = `id_token_signed_response_alg must be one of ${SIGNING_ALGS.map((a) => JSON.stringify(a)).join(', ')} or left out (${JSON.stringify(DEFAULT_SIGNING_ALG)}, the default)`;

/**
 * OIDC Dynamic Registration §2: `id_token_signed_response_alg` defaults to RS256. ES256 and EdDSA
 * are offered because their signatures cost a fraction of an RSA one (docs/decisions.md).
 */
export function idTokenAlg(value: unknown): SigningAlg {
  if (value === undefined) return DEFAULT_SIGNING_ALG;
  if (!isSigningAlg(value)) throw metadataError(ID_TOKEN_ALG_PROBLEM);
  return value;
}

/** Validates a registration request; throws invalid_redirect_uri / invalid_client_metadata. */
export function validateRegistration(
  body: RegistrationRequest,
  loopbackHosts: readonly string[],
): ClientMetadata {
  const uris = redirectUris(body.redirect_uris, loopbackHosts);
  const authMethod = (body.token_endpoint_auth_method ?? 'none') as AuthMethod;
  if (!AUTH_METHODS.includes(authMethod)) {
    throw metadataError(
      `token_endpoint_auth_method ${JSON.stringify(authMethod)} is not supported; send "none" (public client), "client_secret_basic" or "client_secret_post" (confidential client)`,
    );
  }
  const applicationType = (body.application_type ?? 'native') as ClientMetadata['applicationType'];
  if (!APPLICATION_TYPES.includes(applicationType)) {
    throw metadataError('application_type must be "native" (loopback clients, the default) or "web"');
  }
  // A name that shows nothing would leave the consent page without one (src/display-text.ts).
  // An empty or all-space name is no name ("Unnamed application"), as before; one of invisible
  // characters only is refused.
  const clientName = body.client_name?.trim() || undefined;
  const nameProblem = clientName === undefined ? undefined : blankNameProblem('client_name', clientName);
  if (nameProblem) throw metadataError(`${nameProblem}, or leave client_name out`);
  return {
    clientName,
    applicationType,
    redirectUris: uris,
    authMethod,
    grantTypes: grantTypes(body.grant_types),
    responseTypes: responseTypes(body.response_types),
    idTokenAlg: idTokenAlg(body.id_token_signed_response_alg),
    extra: extraMetadata(body),
  };
}
