/**
 * Rows for a grown database (issue 22 item 5), shaped as the server writes them: stored keys of
 * stamped secrets (the SHA-256 of the secret behind its issue-time stamp, docs/storage.md), time-ordered
 * grant ids, client rows as registration writes them, expiries from the shipped lifetimes.
 * Generated a batch at a time, so a fill of millions of rows never holds them all.
 *
 * The lab imports nothing of the server's code: the row shapes below are the tables of
 * docs/storage.md, and test/fill.test.ts proves them against the built server over HTTP (a
 * filled token opens the API, a filled refresh token rotates) and its CLI (`schoolauth prune`
 * deletes exactly the expired rows).
 */
import { createHash, randomBytes } from 'node:crypto';

/** The prefixes of the server's secrets (docs/security.md: every secret names its kind). */
const TOKEN_PREFIX = { accessToken: 'sa_at_', refreshToken: 'sa_rt_' } as const;
/** A stamp: the issue time in epoch milliseconds, base 36, 9 characters. */
const STAMP_LENGTH = 9;

function randomBase64url(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

function randomId(prefix: string): string {
  return prefix + randomBase64url(16);
}

/** A stamped secret's stored key: its stamp, then the SHA-256 of the whole secret (base64url). */
function storedKey(value: string, prefix: string): string {
  const stamp = value.slice(prefix.length, prefix.length + STAMP_LENGTH);
  return stamp + createHash('sha256').update(value).digest('base64url');
}

/** The rows a fill writes: the columns of docs/storage.md's tables. */
export interface Client {
  id: string;
  kind: string;
  name: string;
  application_type: string;
  redirect_uris: string;
  token_endpoint_auth_method: string;
  secret_hash: string | null;
  id_token_signed_response_alg: string;
  grant_types: string;
  response_types: string;
  metadata: string;
  disabled: number;
  created_at: number;
  last_used_at: number | null;
}
export interface Account {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  locale: string;
  disabled: number;
  created_at: number;
  updated_at: number;
}
export interface Grant {
  id: string;
  account_id: string;
  client_id: string;
  scopes: string;
  resource: string;
  nonce: string | null;
  auth_time: number;
  created_at: number;
  last_used_at: number;
  revoked_at: number | null;
}
export interface AccessToken {
  token_hash: string;
  grant_id: string;
  client_id: string;
  account_id: string;
  scopes: string;
  resource: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}
export interface RefreshToken extends AccessToken {
  rotated_at: number | null;
  successor: string | null;
}

/** The shipped lifetimes (docs/configuration.md defaults). */
export const ACCESS_TOKEN_TTL = 3600;
export const REFRESH_TOKEN_TTL = 30 * 86400;
const DAY = 86400;

/** The tables a fill writes, in foreign-key order. */
export type FillTable = 'clients' | 'accounts' | 'grants' | 'access_tokens' | 'refresh_tokens';
export type FillRow = {
  clients: Client;
  accounts: Account;
  grants: Grant;
  access_tokens: AccessToken;
  refresh_tokens: RefreshToken;
};
/** One transaction's worth of rows, by table. */
export type FillBatch = { [T in FillTable]?: Array<FillRow[T]> };

/** A secret as the server mints it (256 random bits behind prefix and stamp), but issued at `ms`. */
export function secretAt(kind: 'accessToken' | 'refreshToken', ms: number): { value: string; hash: string } {
  const prefix = TOKEN_PREFIX[kind];
  const value = prefix + Math.floor(ms).toString(36).padStart(STAMP_LENGTH, '0') + randomBase64url(32);
  return { value, hash: storedKey(value, prefix) };
}

/** A grant id as `timeOrderedId('grt_')` makes it, but created at `ms`. */
export function grantIdAt(ms: number): string {
  return `grt_${Math.floor(ms).toString(36).padStart(9, '0')}${randomBase64url(12)}`;
}

export interface FillShape {
  /** The issuer: every grant's resource when none was asked for. */
  readonly issuer: string;
  /** Epoch seconds: the fill's "now". */
  readonly now: number;
  /** The shared argon2id hash of the filled accounts (nobody signs in as them). */
  readonly passwordHash: string;
  /** Sees every live secret generated (tests use the values; the fill itself keeps none). */
  readonly onSecret?: (kind: 'accessToken' | 'refreshToken', value: string, row: AccessToken) => void;
}

/** A self-registered public client, as POST /register writes it. */
export function clientRow(i: number, shape: FillShape): Client {
  const name = `Grown app ${i}`;
  return {
    id: randomId('dyn_'),
    kind: 'dynamic',
    name,
    application_type: 'native',
    redirect_uris: JSON.stringify([`http://127.0.0.1/cb/${i}`]),
    token_endpoint_auth_method: 'none',
    secret_hash: null,
    id_token_signed_response_alg: 'RS256',
    grant_types: JSON.stringify(['authorization_code', 'refresh_token']),
    response_types: JSON.stringify(['code']),
    metadata: JSON.stringify({ client_name: name }),
    disabled: 0,
    // Recently registered: none is idle, so a prune keeps every one with or without grants.
    created_at: shape.now - DAY,
    last_used_at: shape.now - 3600,
  };
}

export function accountRow(i: number, shape: FillShape): Account {
  const id = randomId('acc_');
  return {
    id,
    email: `grown-${i}-${id.slice(4, 12).toLowerCase()}@example.com`,
    name: `Grown person ${i}`,
    password_hash: shape.passwordHash,
    locale: 'en',
    disabled: 0,
    created_at: shape.now - 90 * DAY,
    updated_at: shape.now - 90 * DAY,
  };
}

/** Spreads `total` over `parts`: part i gets its fair share, the remainder spread evenly. */
export function share(total: number, parts: number, i: number): number {
  return Math.floor(((i + 1) * total) / parts) - Math.floor((i * total) / parts);
}

interface GrantPlan {
  readonly accountId: string;
  readonly clientId: string;
  /** Tokens of this grant: about half refresh (a rotation chain), half access. */
  readonly tokens: number;
  readonly shape: FillShape;
}

/**
 * A live grant and its tokens: a code exchanged `age` ago, refreshed since at even steps (each
 * rotated refresh token kept until its own idle expiry, for reuse detection, its sealed
 * successor already erased), and access tokens issued within the last hour, all unexpired.
 */
export function liveGrant(plan: GrantPlan, ageSeconds: number, batch: Required<FillBatch>): Grant {
  const { shape } = plan;
  const created = shape.now - ageSeconds;
  const refreshCount = Math.ceil(plan.tokens / 2);
  const accessCount = plan.tokens - refreshCount;
  const step = refreshCount > 1 ? Math.floor(ageSeconds / refreshCount) : 0;
  const grant = grantRow(plan, created);
  for (let r = 0; r < refreshCount; r++) {
    const at = created + r * step;
    const last = r === refreshCount - 1;
    batch.refresh_tokens.push(
      tokenRow(
        'refreshToken',
        grant,
        at,
        at + REFRESH_TOKEN_TTL,
        last ? null : at + step,
        last ? shape : undefined,
      ) as RefreshToken,
    );
  }
  for (let a = 0; a < accessCount; a++) {
    const at = shape.now - Math.floor(((a + 1) * ACCESS_TOKEN_TTL * 0.9) / (accessCount + 1));
    batch.access_tokens.push(
      tokenRow('accessToken', grant, Math.max(at, created), at + ACCESS_TOKEN_TTL, null, shape),
    );
  }
  grant.last_used_at = Math.max(created, created + (refreshCount - 1) * step);
  return grant;
}

/**
 * A dead grant: every token long expired (a prune takes them, then the grant). `tokens` rows of
 * tokens, about half refresh, half access.
 */
export function deadGrant(plan: GrantPlan, batch: Required<FillBatch>): Grant {
  const created = plan.shape.now - 90 * DAY;
  const grant = grantRow(plan, created);
  for (let t = 0; t < plan.tokens; t++) {
    const at = created + t * 60;
    if (t % 2 === 0) {
      batch.refresh_tokens.push(
        tokenRow('refreshToken', grant, at, at + REFRESH_TOKEN_TTL, null) as RefreshToken,
      );
    } else {
      batch.access_tokens.push(tokenRow('accessToken', grant, at, at + ACCESS_TOKEN_TTL, null));
    }
  }
  return grant;
}

function grantRow(plan: GrantPlan, created: number): Grant {
  return {
    id: grantIdAt(created * 1000),
    account_id: plan.accountId,
    client_id: plan.clientId,
    scopes: 'openid profile email account:read',
    resource: plan.shape.issuer,
    nonce: null,
    auth_time: created,
    created_at: created,
    last_used_at: created,
    revoked_at: null,
  };
}

function tokenRow(
  kind: 'accessToken' | 'refreshToken',
  grant: Grant,
  createdAt: number,
  expiresAt: number,
  rotatedAt: number | null,
  /** Given for live tokens: told the secret. */
  live?: FillShape,
): AccessToken | RefreshToken {
  const secret = secretAt(kind, createdAt * 1000 + 1);
  const row: AccessToken = {
    token_hash: secret.hash,
    grant_id: grant.id,
    client_id: grant.client_id,
    account_id: grant.account_id,
    scopes: grant.scopes,
    resource: grant.resource,
    created_at: createdAt,
    expires_at: expiresAt,
    revoked_at: null,
  };
  live?.onSecret?.(kind, secret.value, row);
  return kind === 'accessToken' ? row : { ...row, rotated_at: rotatedAt, successor: null };
}

export function emptyBatch(): Required<FillBatch> {
  return { clients: [], accounts: [], grants: [], access_tokens: [], refresh_tokens: [] };
}
