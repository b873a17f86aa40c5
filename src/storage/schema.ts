/**
 * Table types. Times are epoch seconds (integers) and flags are 0/1 integers, so that one
 * definition reads the same on SQLite and PostgreSQL. Secrets are never stored: columns named
 * `*_hash` hold the stored key of a token, code, client secret or session id (its time of issue,
 * then its SHA-256: `hashSecret` in crypto/tokens.ts) or an argon2id hash (passwords).
 */
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { SigningAlg } from '../crypto/signing-key.js';
import type { ApiDatabase } from './api-schema.js';

export interface SchoolsTable {
  id: string;
  slug: string;
  name: string;
  description: string;
  /** JSON object: school settings (timezone, currency, contact email, …). */
  settings: string;
  /** JSON object: appearance (colours, logo URL, theme). */
  appearance: string;
  created_at: number;
  updated_at: number;
}

export interface AccountsTable {
  id: string;
  /** Lower-cased. */
  email: string;
  name: string;
  password_hash: string;
  locale: string;
  disabled: number;
  created_at: number;
  updated_at: number;
}

export type Role = 'owner' | 'admin';

export interface MembershipsTable {
  account_id: string;
  school_id: string;
  role: Role;
  created_at: number;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: string;
  /** JSON JWK, or `enc:v1:` + AES-256-GCM ciphertext when KEY_ENCRYPTION_SECRET is set. */
  private_jwk: string;
  created_at: number;
  /** When the key starts signing: published from creation, signing only from here (pre-publication). */
  activates_at: number;
  /** When a newer key takes over signing (set at rotation, may lie ahead); published until `retire_until`. */
  retired_at: number | null;
  retire_until: number | null;
}

/**
 * `dynamic`: self-registered (RFC 7591). `integration`: created by an operator. `metadata_document`:
 * identified by an https client_id URL whose document was fetched (docs/decisions.md "Client ID Metadata Documents"); the row holds the
 * latest valid document, so grants, tokens and consents refer to it like to any other client.
 */
export type ClientKind = 'dynamic' | 'integration' | 'metadata_document';

export interface ClientsTable {
  id: string;
  kind: ClientKind;
  name: string;
  application_type: string;
  /** JSON array of strings. */
  redirect_uris: string;
  /** A confidential client (either secret method) may authenticate with either (docs/decisions.md "Registration"). */
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  secret_hash: string | null;
  /** JSON array of strings. */
  grant_types: string;
  /** JSON array of strings. */
  response_types: string;
  /** JSON object of any other registered metadata echoed back (RFC 7591 §3.2.1). */
  metadata: string;
  /** The algorithm its ID tokens are signed with (migration 0120; RS256 unless it asked otherwise). */
  id_token_signed_response_alg: SigningAlg;
  disabled: number;
  created_at: number;
  last_used_at: number | null;
}

export type MetadataRuleTarget = 'client_id' | 'domain';
export type MetadataRuleDecision = 'block' | 'trust';

/** An operator's rule for client_id URLs (docs/decisions.md "Client ID Metadata Documents"): one URL exactly, or a domain and its subdomains. */
export interface ClientMetadataRulesTable {
  target_kind: MetadataRuleTarget;
  target: string;
  decision: MetadataRuleDecision;
  created_at: number;
}

export interface SessionsTable {
  /** SHA-256 of the session cookie value. */
  id_hash: string;
  account_id: string;
  /** Secret the per-form CSRF tokens are derived from. */
  csrf_secret: string;
  auth_time: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

export interface ConsentsTable {
  account_id: string;
  client_id: string;
  /** Space-separated granted scopes. */
  scopes: string;
  created_at: number;
  updated_at: number;
}

/** One authorization: a code and the token family that descends from it. */
export interface GrantsTable {
  id: string;
  account_id: string;
  client_id: string;
  scopes: string;
  /** The audience (RFC 8707 resource); the issuer when none was asked for. */
  resource: string;
  nonce: string | null;
  auth_time: number;
  created_at: number;
  last_used_at: number;
  revoked_at: number | null;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  grant_id: string;
  client_id: string;
  account_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string;
  nonce: string | null;
  auth_time: number;
  created_at: number;
  expires_at: number;
  consumed_at: number | null;
  /** RFC 9449: the SHA-256 JWK thumbprint of the DPoP key whose proof must redeem it (`dpop_jkt`, RFC 9449 §10); null: not bound (migration 0130). */
  jkt: string | null;
}

export interface AccessTokensTable {
  token_hash: string;
  grant_id: string;
  client_id: string;
  account_id: string;
  scopes: string;
  resource: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** RFC 9449: the SHA-256 JWK thumbprint of the DPoP key it is bound to; null: not bound (migration 0130). */
  jkt: string | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  grant_id: string;
  client_id: string;
  account_id: string;
  scopes: string;
  resource: string;
  created_at: number;
  /** Idle expiry: each rotation issues a successor with a fresh window. */
  expires_at: number;
  /** When this token was exchanged for its successor; a repeat within REFRESH_GRACE is idempotent. */
  rotated_at: number | null;
  /**
   * The successor pair, sealed under a key derived from this token (src/crypto/successor-seal.ts),
   * for a repeat within REFRESH_GRACE; erased when the window ends or the grant is revoked.
   */
  successor: string | null;
  revoked_at: number | null;
  /** RFC 9449 §5: the DPoP key a public client's refresh token is bound to; null: bound to the client only. */
  jkt: string | null;
}

export interface AuditEventsTable {
  id: Generated<number>;
  at: number;
  kind: string;
  account_id: string | null;
  client_id: string | null;
  ip: string | null;
  /** JSON object; never a secret. */
  detail: string;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: number;
}

/** Sign-in attempts per account, client IP or trusted browser (src/rate-limit/signin-throttle.ts). */
export interface SigninThrottleTable {
  key: string;
  /** Attempts counted and not refunded: failures, and attempts whose check is still running. */
  failures: number;
  /** Until then every attempt on this key is refused without a password check. */
  blocked_until: number;
  /** When the row is forgotten: the last counted attempt plus max(15 minutes, the back-off). */
  forget_at: number;
  /** Attempts refused since the last counted one (0 right after a counted attempt). */
  refused: number;
}

/** Keys created once per database, shared by every instance (src/storage/server-secrets.repository.ts). */
export interface ServerSecretsTable {
  name: string;
  /** base64url CSPRNG output; never logged. */
  value: string;
  created_at: number;
}

/** A DPoP proof seen (RFC 9449 §11.1): refused again until it would be stale anyway (src/dpop/replay.ts). */
export interface DpopProofsTable {
  /** SHA-256 of the proof key's thumbprint and its jti, base64url. */
  proof_key: string;
  expires_at: number;
}

/** A server nonce (RFC 9449 §8) every instance accepts until `expires_at`; only its SHA-256 is stored. */
export interface DpopNoncesTable {
  nonce_hash: string;
  expires_at: number;
}

/**
 * A device authorization request (RFC 8628 §3.1), from its response to the poll that spends it
 * (src/storage/contract/device-authorizations.ts). Pending while `decided_at` is null; approved
 * when decided with `denied` 0; spent once, by the first poll after approval.
 */
export interface DeviceAuthorizationsTable {
  /** The stored key (stamp + SHA-256) of the device code. */
  device_code_hash: string;
  /** SHA-256 of the user code, normalised (8 characters, upper case, no separator). */
  user_code_hash: string;
  client_id: string;
  /** Space-separated scopes the client asked for. */
  scopes: string;
  /** The audience (RFC 8707); the issuer when none was asked for. */
  resource: string;
  /** Seconds the client must wait between polls; +5 at each slow_down (RFC 8628 §3.5). */
  poll_interval: number;
  created_at: number;
  expires_at: number;
  last_polled_at: number | null;
  /** Who decided (approved or denied); null while pending. */
  account_id: string | null;
  /** Space-separated scopes the person granted; null until approved. */
  granted_scopes: string | null;
  /** When the deciding person last entered their password (the ID token's auth_time). */
  auth_time: number | null;
  decided_at: number | null;
  /** 1 when the person chose Deny. */
  denied: number;
  /** When a poll exchanged the approval for tokens; null until then. */
  spent_at: number | null;
}

export interface Database extends ApiDatabase {
  schools: SchoolsTable;
  accounts: AccountsTable;
  memberships: MembershipsTable;
  signing_keys: SigningKeysTable;
  clients: ClientsTable;
  client_metadata_rules: ClientMetadataRulesTable;
  sessions: SessionsTable;
  consents: ConsentsTable;
  grants: GrantsTable;
  authorization_codes: AuthorizationCodesTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  audit_events: AuditEventsTable;
  rate_limits: RateLimitsTable;
  signin_throttle: SigninThrottleTable;
  server_secrets: ServerSecretsTable;
  dpop_proofs: DpopProofsTable;
  dpop_nonces: DpopNoncesTable;
  device_authorizations: DeviceAuthorizationsTable;
}

export type School = Selectable<SchoolsTable>;
export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type AccountUpdate = Updateable<AccountsTable>;
export type Membership = Selectable<MembershipsTable>;
export type SigningKeyRow = Selectable<SigningKeysTable>;
export type Client = Selectable<ClientsTable>;
export type ClientMetadataRule = Selectable<ClientMetadataRulesTable>;
export type Session = Selectable<SessionsTable>;
export type Consent = Selectable<ConsentsTable>;
export type Grant = Selectable<GrantsTable>;
export type AuthorizationCode = Selectable<AuthorizationCodesTable>;
export type AccessToken = Selectable<AccessTokensTable>;
export type RefreshToken = Selectable<RefreshTokensTable>;
export type AuditEvent = Selectable<AuditEventsTable>;
/** An audit row as written: every column but the generated id. */
export type AuditEventRow = Omit<AuditEvent, 'id'>;
export type DeviceAuthorization = Selectable<DeviceAuthorizationsTable>;
