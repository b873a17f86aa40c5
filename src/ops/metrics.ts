/**
 * Prometheus metrics (prom-client), one registry per process. HTTP metrics come from Fastify's
 * onResponse hook (http/request-arrival.ts) and the error hook; OAuth event counters follow the
 * audit trail (recordAudit calls `countAuditEvent`), so every audited issuance, refresh,
 * revocation, replay and reuse is counted exactly once.
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'schoolauth_' });

// Labelled by route pattern, never the raw URL: a few hundred series at most.
const requests = new Counter({
  name: 'schoolauth_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

const latency = new Histogram({
  name: 'schoolauth_http_request_duration_seconds',
  help: 'HTTP request latency, by method and route pattern',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const oauthErrors = new Counter({
  name: 'schoolauth_oauth_errors_total',
  help: 'Error responses, by error code (invalid_grant, invalid_client, rate_limited, …)',
  labelNames: ['code'] as const,
  registers: [registry],
});

const clientMetadataFetches = new Counter({
  name: 'schoolauth_client_metadata_fetches_total',
  help: 'Client ID Metadata Document fetches (cache misses), by outcome: ok, invalid_document, address_refused, dns, timeout, tls, network, redirect, status, content_type, too_large',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

function counter(name: string, help: string): Counter {
  return new Counter({ name, help, registers: [registry] });
}

const tokensIssued = counter(
  'schoolauth_tokens_issued_total',
  'Token responses to authorization_code grants',
);
const tokensRefreshed = counter(
  'schoolauth_tokens_refreshed_total',
  'Token responses to refresh_token grants',
);
const tokensRevoked = counter('schoolauth_tokens_revoked_total', 'Tokens and grants revoked');
const codeReplays = counter(
  'schoolauth_code_replays_total',
  'Authorization codes presented again (RFC 6749 §4.1.2); the tokens they issued were revoked',
);
const refreshReuse = counter(
  'schoolauth_refresh_reuse_total',
  'Rotated refresh tokens used again outside the grace window; their grant was revoked',
);
const signinFailures = counter('schoolauth_signin_failures_total', 'Failed sign-ins');
const signinThrottled = new Counter({
  name: 'schoolauth_signin_throttled_total',
  help: 'Sign-ins answered 429 without a password check: limit (too many attempts for the account, IP or browser) or busy (no password-check slot free)',
  labelNames: ['reason'] as const,
  registers: [registry],
});

const deviceAuthorizations = new Counter({
  name: 'schoolauth_device_authorizations_total',
  help: 'Device authorization requests (RFC 8628), by event: created (at the device authorization endpoint), approved or denied (by a person on /device)',
  labelNames: ['event'] as const,
  registers: [registry],
});
const devicePollsRefused = new Counter({
  name: 'schoolauth_device_polls_refused_total',
  help: "Device code polls that can never succeed, by reason: expired (expired_token), spent (the code was already exchanged), unknown (unknown or another client's code: invalid_grant)",
  labelNames: ['reason'] as const,
  registers: [registry],
});

const BY_AUDIT_KIND: Readonly<Record<string, Counter>> = {
  'token.issued': tokensIssued,
  'token.refreshed': tokensRefreshed,
  'token.revoked': tokensRevoked,
  'grant.revoked': tokensRevoked,
  'code.replayed': codeReplays,
  'refresh.reused': refreshReuse,
  'signin.failure': signinFailures,
};

/** Called by recordAudit for every security event. */
export function countAuditEvent(kind: string): void {
  BY_AUDIT_KIND[kind]?.inc();
}

/** A sign-in refused before its password was checked (src/sessions/sign-in.ts). */
export function countSigninThrottled(reason: 'limit' | 'busy'): void {
  signinThrottled.inc({ reason });
}

/** A device authorization request created, approved or denied (src/oauth/device/, src/pages/device.routes.ts). */
export function countDeviceAuthorization(event: 'created' | 'approved' | 'denied'): void {
  deviceAuthorizations.inc({ event });
}

/** A poll of a device code that is expired, spent, unknown or another client's (grants/device-code.ts). */
export function countDevicePollRefused(reason: 'expired' | 'spent' | 'unknown'): void {
  devicePollsRefused.inc({ reason });
}

/** An error answered to a client, by its wire code (also for errors sent as redirects). */
export function countOAuthError(code: string): void {
  oauthErrors.inc({ code });
}

/** One fetch of a client metadata document, by outcome (src/oauth/client-id-metadata/). */
export function countClientMetadataFetch(outcome: string): void {
  clientMetadataFetches.inc({ outcome });
}

/** Called once per answered request, when its answer ends (http/request-arrival.ts, metrics-routes.ts). */
export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  requests.inc({ method, route, status });
  latency.observe({ method, route }, seconds);
}

export function metricsText(): Promise<string> {
  return registry.metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;
