/**
 * The scenarios: one request shape each, the same on both servers (paths come from each
 * server's discovery document). Single-use values (codes, refresh tokens, revoked tokens) come
 * from the fixture's pools, each used once.
 */
import type { DpopKey } from './dpop.js';
import type { Fixture, FixtureStep, PoolKind } from './fixture.js';
import type { FreshHeaders, LoadPlan, StaticRequest } from './load.js';
import {
  codeExchangeBody,
  DISCOVERY_PATH,
  FORM,
  REGISTRATION_BODY,
  refreshBody,
  tokenRequestBody,
} from './oauth.js';

export const SCENARIO_NAMES = [
  'discovery',
  'jwks',
  'registration',
  'code',
  'dpop-code',
  'code-oidc',
  'code-oidc-es256',
  'refresh',
  'dpop-refresh',
  'userinfo',
  'introspection',
  'revocation',
  'api',
  'dpop-api',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export interface Scenario {
  readonly name: ScenarioName;
  readonly title: string;
  /** The single-use pool a run consumes, one value per request. */
  readonly pool?: PoolKind;
  /** Compared with bare Fastify rather than (or as well as) node-oidc-provider. */
  readonly baseline?: boolean;
  /** Only schoolauth has it (the protected school API). */
  readonly schoolauthOnly?: boolean;
  /** Presents the fixture's reader token, renewed before each load (Fixture.freshReader). */
  readonly reader?: boolean;
  /** The load plan, or why this server cannot run the scenario (yet). */
  plan(fixture: Fixture): LoadPlan | string;
}

const pathOf = (url: string) => new URL(url).pathname;

const fromPool =
  (pool: string[], body: (value: string) => string): (() => string | undefined) =>
  () => {
    const value = pool.pop();
    return value === undefined ? undefined : body(value);
  };

function staticPlan(request: StaticRequest): LoadPlan {
  return { kind: 'static', request };
}

function needs(fixture: Fixture, ...steps: FixtureStep[]): string | undefined {
  for (const step of ['registration', 'authorize', 'token'] as const) {
    const problem = fixture.problems.get(step);
    if (problem !== undefined) return steps.includes(step) ? problem : undefined;
  }
  return undefined;
}

function codeExchange(f: Fixture, pool: 'codes' | 'oidc-codes' | 'oidc-es256-codes'): LoadPlan | string {
  const client = pool === 'oidc-es256-codes' ? f.es256Client : f.client;
  return (
    needs(f, 'registration', 'authorize') ?? {
      kind: 'pool',
      base: { method: 'POST', path: pathOf(f.meta.token_endpoint), headers: FORM },
      next: fromPool(f.pools[pool], (code) => codeExchangeBody(client!, code, f.pkce)),
    }
  );
}

/** The run's DPoP key, or why the server cannot run a DPoP scenario. */
function dpopKey(f: Fixture): DpopKey | string {
  return typeof f.dpop === 'string' ? `no DPoP: ${f.dpop}` : f.dpop;
}

/** A fresh proof for every token request (RFC 9449 §4.2: a new jti and iat each time). */
const tokenProof =
  (f: Fixture, key: DpopKey): FreshHeaders =>
  () => ({ dpop: key.proof('POST', f.meta.token_endpoint) });

/**
 * The URI the server compares `htu` with: its issuer followed by the request's path
 * (src/dpop/htu.ts `requestHtu`).
 */
const htuOf = (f: Fixture, path: string) => f.meta.issuer.replace(/\/$/, '') + path;

/**
 * The DPoP protected GET (RFC 9449 §7.1): the Bearer GET's request with `Authorization: DPoP`
 * and, per request, a proof with `ath`, the hash of the access token.
 */
function dpopApi(f: Fixture): LoadPlan | string {
  const key = dpopKey(f);
  if (typeof key === 'string') return key;
  const token = f.dpopReader?.access_token;
  if (token === undefined) return 'no DPoP-bound reader token';
  const path = f.target.protectedPath ?? '/';
  const htu = htuOf(f, path);
  return {
    kind: 'static',
    request: { method: 'GET', path, headers: { authorization: `DPoP ${token}` } },
    fresh: () => ({ dpop: key.proof('GET', htu, token) }),
  };
}

const bearer = (fixture: Fixture) => ({ authorization: `Bearer ${fixture.reader!.access_token}` });

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'discovery',
    title: 'GET discovery document',
    baseline: true,
    plan: () => staticPlan({ method: 'GET', path: DISCOVERY_PATH }),
  },
  {
    name: 'jwks',
    title: 'GET JWKS',
    baseline: true,
    plan: (f) => staticPlan({ method: 'GET', path: pathOf(f.meta.jwks_uri) }),
  },
  {
    name: 'registration',
    title: 'POST register (RFC 7591)',
    plan: (f) =>
      needs(f, 'registration') ??
      staticPlan({
        method: 'POST',
        path: pathOf(f.meta.registration_endpoint),
        headers: { 'content-type': 'application/json' },
        body: REGISTRATION_BODY,
      }),
  },
  {
    name: 'code',
    title: 'POST token: authorization code + PKCE',
    pool: 'codes',
    plan: (f) => codeExchange(f, 'codes'),
  },
  {
    name: 'dpop-code',
    title: 'POST token: authorization code + PKCE, with a DPoP proof',
    pool: 'codes',
    schoolauthOnly: true,
    plan: (f) => {
      const key = dpopKey(f);
      if (typeof key === 'string') return key;
      const plan = codeExchange(f, 'codes');
      return typeof plan === 'string' || plan.kind !== 'pool' ? plan : { ...plan, fresh: tokenProof(f, key) };
    },
  },
  {
    name: 'code-oidc',
    title: 'POST token: code + PKCE, with openid (RS256 ID token)',
    pool: 'oidc-codes',
    plan: (f) => codeExchange(f, 'oidc-codes'),
  },
  {
    // The client-side lever on the ID token's cost (docs/performance.md): both servers' clients
    // registered with id_token_signed_response_alg ES256.
    name: 'code-oidc-es256',
    title: 'POST token: code + PKCE, with openid (ES256 ID token)',
    pool: 'oidc-es256-codes',
    plan: (f) => codeExchange(f, 'oidc-es256-codes'),
  },
  {
    name: 'refresh',
    title: 'POST token: refresh with rotation',
    pool: 'refresh',
    plan: (f) =>
      needs(f, 'registration', 'authorize', 'token') ?? {
        kind: 'pool',
        base: { method: 'POST', path: pathOf(f.meta.token_endpoint), headers: FORM },
        next: fromPool(f.pools.refresh, (token) => refreshBody(f.client!, token)),
      },
  },
  {
    name: 'dpop-refresh',
    title: 'POST token: refresh with rotation, DPoP-bound (a proof of the key)',
    pool: 'dpop-refresh',
    schoolauthOnly: true,
    plan: (f) => {
      const key = dpopKey(f);
      if (typeof key === 'string') return key;
      return (
        needs(f, 'registration', 'authorize', 'token') ?? {
          kind: 'pool',
          base: { method: 'POST', path: pathOf(f.meta.token_endpoint), headers: FORM },
          next: fromPool(f.pools['dpop-refresh'], (token) => refreshBody(f.client!, token)),
          fresh: tokenProof(f, key),
        }
      );
    },
  },
  {
    name: 'userinfo',
    reader: true,
    title: 'GET userinfo (bearer)',
    plan: (f) =>
      needs(f, 'registration', 'authorize', 'token') ??
      staticPlan({ method: 'GET', path: pathOf(f.meta.userinfo_endpoint), headers: bearer(f) }),
  },
  {
    name: 'introspection',
    reader: true,
    title: 'POST introspect (RFC 7662)',
    plan: (f) =>
      needs(f, 'registration', 'authorize', 'token') ??
      staticPlan({
        method: 'POST',
        path: pathOf(f.meta.introspection_endpoint),
        headers: FORM,
        body: tokenRequestBody(f.client!, f.reader!.access_token, 'access_token'),
      }),
  },
  {
    name: 'revocation',
    title: 'POST revoke access token (RFC 7009)',
    pool: 'access',
    plan: (f) =>
      needs(f, 'registration', 'authorize', 'token') ?? {
        kind: 'pool',
        base: { method: 'POST', path: pathOf(f.meta.revocation_endpoint), headers: FORM },
        next: fromPool(f.pools.access, (token) => tokenRequestBody(f.client!, token, 'access_token')),
      },
  },
  {
    name: 'api',
    reader: true,
    title: 'GET protected API resource (bearer)',
    baseline: true,
    schoolauthOnly: true,
    plan: (f) =>
      needs(f, 'registration', 'authorize', 'token') ??
      staticPlan({ method: 'GET', path: f.target.protectedPath ?? '/', headers: bearer(f) }),
  },
  {
    name: 'dpop-api',
    reader: true,
    title: 'GET protected API resource (DPoP: a fresh proof with ath)',
    schoolauthOnly: true,
    plan: (f) => needs(f, 'registration', 'authorize', 'token') ?? dpopApi(f),
  },
];
