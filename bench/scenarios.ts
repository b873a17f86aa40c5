/**
 * The scenarios: one request shape each, the same on both servers (paths come from each
 * server's discovery document). Single-use values (codes, refresh tokens, revoked tokens) come
 * from the fixture's pools, each used once.
 */
import type { Fixture, FixtureStep, PoolKind } from './fixture.js';
import type { LoadPlan, StaticRequest } from './load.js';
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
  'code-oidc',
  'code-oidc-es256',
  'refresh',
  'userinfo',
  'introspection',
  'revocation',
  'api',
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
];
