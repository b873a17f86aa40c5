/**
 * The one place that reads the environment. Every variable is validated at start and every
 * problem is reported at once, so an operator fixes a deployment in one go.
 */

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** Canonical issuer and resource identifier: an origin, never a trailing slash. */
  readonly issuer: string;
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** Directory for the SQLite database default and storage uploads. */
  readonly dataDir: string;
  readonly logLevel: LogLevel;
  /** Which answered requests get a `request completed` line: every one, or failed and slow ones. */
  readonly logRequests: LogRequests;
  /** `json` lines (the default, for machines) or `pretty`, one readable line each (development). */
  readonly logFormat: LogFormat;
  /** Fastify `trustProxy`: false, true, a hop count, or a comma-separated address list. */
  readonly trustProxy: boolean | number | string;
  readonly codeTtl: number;
  /** Device authorization request lifetime, seconds (RFC 8628 §3.2 expires_in; DEVICE_CODE_TTL). */
  readonly deviceCodeTtl: number;
  readonly accessTokenTtl: number;
  readonly idTokenTtl: number;
  /** `max-age` of the JWKS; a rotated-in key signs only after it has passed (pre-publication). */
  readonly jwksMaxAge: number;
  readonly refreshTokenTtl: number;
  readonly refreshGrace: number;
  /** RFC 9449 §4.3, §11.1: seconds a DPoP proof's `iat` may lie before or after the server's time. */
  readonly dpopProofWindow: number;
  /** RFC 9449 §8, §9: whether DPoP proofs must carry a server nonce (docs/decisions.md "DPoP"). */
  readonly dpopNonces: boolean;
  readonly sessionTtl: number;
  readonly sessionAbsoluteTtl: number;
  /** A dynamic client with no live grant and no use for this long is pruned. */
  readonly clientIdleTtl: number;
  readonly rateLimits: boolean;
  readonly rateLimitRegister: number;
  readonly rateLimitToken: number;
  readonly rateLimitSignin: number;
  readonly rateLimitApi: number;
  /** PostgreSQL: milliseconds between writes of this instance's rate-limit counts to the shared table. */
  readonly rateLimitFlushMs: number;
  /** Rate-limit keys held in memory at most (src/rate-limit/window-counters.ts). */
  readonly rateLimitMaxKeys: number;
  /** Password checks (argon2id) running at once in this process. */
  readonly signinConcurrency: number;
  /** Sign-ins waiting for a password check; beyond them a sign-in is answered 429 at once. */
  readonly signinQueue: number;
  /** Hosts accepted in self-registered loopback redirect URIs (and, with any port, as CORS origins). */
  readonly loopbackHosts: readonly string[];
  /** Web origins of integrations allowed to call the token, API, … routes from a browser (CORS). */
  readonly corsOrigins: readonly string[];
  readonly uploadMaxBytes: number;
  readonly pruneInterval: number;
  /** Settings this version no longer reads that are set (REMOVED_SETTINGS): warned about at start. */
  readonly ignoredSettings: readonly string[];
  /** Bearer secret for /metrics; when unset /metrics is served only on METRICS_PORT (if set). */
  readonly metricsToken: string | undefined;
  readonly metricsPort: number | undefined;
  readonly keyEncryptionSecret: string | undefined;
  readonly shutdownTimeout: number;
  /**
   * Seconds for a whole request — request line, headers and body — to arrive (Node's
   * `requestTimeout`); past it the request is answered 408 and the connection closed.
   */
  readonly requestTimeout: number;
  /**
   * Seconds a connection may stay silent — kept alive between requests, or with nothing sent
   * either way during one (Node's `keepAliveTimeout` and the socket timeout) — before it is closed.
   */
  readonly idleTimeout: number;
  /** PostgreSQL connections per instance (plus one for key-change notifications). */
  readonly databasePoolSize: number;
  /** Seconds a request waits for the database (a connection, a statement, a SQLite lock) before 503. */
  readonly databaseTimeout: number;
  /** PostgreSQL: the fixed statements prepared once per connection (off behind PgBouncer < 1.21). */
  readonly databaseNamedStatements: boolean;
  /** Seed a demo school on first start: only a loopback server (HOST and ISSUER) on SQLite may. */
  readonly seedDemo: boolean;
  readonly clientMetadata: ClientMetadataConfig;
}

/** Client ID Metadata Documents (docs/decisions.md "Client ID Metadata Documents"): fetching, caching and the fetch rate limit. */
export interface ClientMetadataConfig {
  /** https client_id URLs are fetched as metadata documents; metadata says so. */
  readonly enabled: boolean;
  /** Milliseconds to resolve the host and finish the TCP and TLS handshakes. */
  readonly connectTimeoutMs: number;
  /** Milliseconds, once connected, to receive the whole document. */
  readonly readTimeoutMs: number;
  /** Bounds (seconds) on the cache lifetime the response's headers ask for. */
  readonly cacheMin: number;
  readonly cacheMax: number;
  /** Documents kept at most (least recently used go first). */
  readonly cacheEntries: number;
  /** PEM certificates from CLIENT_METADATA_CA_FILE, trusted besides Node's roots. */
  readonly caCertificates: readonly string[] | undefined;
  /** Fetches (cache misses) per minute per client IP. */
  readonly rateLimit: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Settings of earlier versions that no longer do anything: accepted, so that a deployment that
 * sets one still starts, and named in a start-up warning (docs/configuration.md "Removed settings").
 */
export const REMOVED_SETTINGS = ['PRUNE_THREAD'] as const;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export type LogRequests = 'all' | 'errors';
const LOG_REQUESTS: readonly LogRequests[] = ['all', 'errors'];
export type LogFormat = 'json' | 'pretty';
const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];
const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name}=${JSON.stringify(value)}: expected a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(value);
  }

  onOff(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['on', 'true', '1', 'yes'].includes(value)) return true;
    if (['off', 'false', '0', 'no'].includes(value)) return false;
    this.problems.push(`${name}=${JSON.stringify(value)}: expected "on" or "off"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!allowed.includes(value as T)) {
      this.problems.push(`${name}=${JSON.stringify(value)}: expected one of ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`, 'i');
const NUMERIC_LAST_LABEL = /(?:^|\.)\d+$/;

/**
 * HOST is what the server listens on: an IP address (v4 or v6, as `listen()` takes it) or a host
 * name (RFC 1123 labels). Dotted numbers must be a valid IPv4 address: `999.1.1.1` is not a host
 * name (WHATWG URL parses an all-numeric last label as IPv4), and would otherwise fail later,
 * unnamed, as "Invalid URL".
 */
function readHost(r: Reader): string {
  const fallback = '127.0.0.1';
  const value = r.raw('HOST');
  if (value === undefined) return fallback;
  if (isIP(value) === 0 && (NUMERIC_LAST_LABEL.test(value) || !HOSTNAME.test(value))) {
    r.problems.push(
      `HOST=${JSON.stringify(value)}: expected an IP address (such as 127.0.0.1, 0.0.0.0, ::1 or ::) or a host name`,
    );
    return fallback;
  }
  return value;
}

/** HOST as it appears in a URL: an IPv6 address in brackets. */
const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/**
 * Without ISSUER the issuer is the loopback address the server listens on (`http://$HOST:$PORT`),
 * and only then: a server listening beyond loopback (0.0.0.0, ::, a private address, a host name)
 * cannot know the name its clients use, and a guessed `http://127.0.0.1` issuer there would be
 * wrong for every client that is not on this machine (docs/deploy.md "The issuer").
 */
function readIssuer(r: Reader, host: string, port: number): string {
  const value = r.raw('ISSUER');
  const fallback = `http://${urlHost(host)}:${port}`;
  if (value === undefined) {
    if (isLoopbackHostname(urlHost(host))) return fallback;
    r.problems.push(
      `ISSUER: required when HOST=${JSON.stringify(host)} listens beyond loopback; set ISSUER to the public origin clients use, e.g. ISSUER=https://auth.example.com`,
    );
    return `http://127.0.0.1:${port}`;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    r.problems.push(
      `ISSUER=${JSON.stringify(value)}: expected an absolute http(s) URL such as https://auth.example.com`,
    );
    return fallback;
  }
  const loopback = isLoopbackHostname(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    r.problems.push(
      `ISSUER=${JSON.stringify(value)}: expected https (plain http is allowed only for a loopback host)`,
    );
  }
  if (url.search || url.hash || url.username || url.password || url.pathname !== '/') {
    // RFC 8414 §3 / RFC 9728 §3 put a path issuer's metadata at a path-suffixed well-known URL;
    // we serve one origin, so the issuer is an origin and every well-known path is the plain one.
    r.problems.push(
      `ISSUER=${JSON.stringify(value)}: expected an origin only (scheme, host, optional port), without path, query, fragment or credentials`,
    );
  }
  // One canonical string everywhere: the origin, without a trailing slash.
  return url.origin;
}

export function isLoopbackHostname(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    hostname === '::1' ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname)
  );
}

/** Whether the issuer names a loopback host (false for anything unparsable). */
export function isLoopbackIssuer(issuer: string): boolean {
  try {
    return isLoopbackHostname(new URL(`${issuer}/`).hostname);
  } catch {
    return false;
  }
}

function readTrustProxy(r: Reader): boolean | number | string {
  const value = r.raw('TRUST_PROXY');
  if (value === undefined || ['off', 'false', '0', 'no'].includes(value.toLowerCase())) return false;
  if (['on', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (/^\d+$/.test(value)) return Number(value);
  if (/^[0-9a-fA-F:.,/\s]+$/.test(value)) return value;
  r.problems.push(
    `TRUST_PROXY=${JSON.stringify(value)}: expected off, on, a hop count, or comma-separated proxy addresses/CIDRs`,
  );
  return false;
}

function readLoopbackHosts(r: Reader): string[] {
  const value = r.raw('LOOPBACK_HOSTS');
  if (value === undefined) return [...LOOPBACK_HOSTS];
  const hosts = value.split(',').map((h) => h.trim());
  const bad = hosts.filter((h) => !LOOPBACK_HOSTS.includes(h));
  if (bad.length > 0 || hosts.length === 0) {
    r.problems.push(
      `LOOPBACK_HOSTS=${JSON.stringify(value)}: expected a comma-separated subset of ${LOOPBACK_HOSTS.join(', ')}`,
    );
    return [...LOOPBACK_HOSTS];
  }
  return hosts;
}

/**
 * CORS_ORIGINS: the web origins (scheme, host, port) of integrations whose browser code may call
 * the token, revocation, introspection, UserInfo, registration and API routes, besides loopback
 * origins (src/http/cors.ts). https only: a plain-http page elsewhere could be rewritten in transit.
 */
function readCorsOrigins(r: Reader): string[] {
  const value = r.raw('CORS_ORIGINS');
  if (value === undefined) return [];
  const origins: string[] = [];
  for (const entry of value.split(',').map((o) => o.trim())) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:' || url.origin !== entry.replace(/\/$/, '')) {
      r.problems.push(
        `CORS_ORIGINS: ${JSON.stringify(entry)} is not an https origin; expected comma-separated origins such as https://app.example.com (scheme, host and optional port, no path)`,
      );
      continue;
    }
    origins.push(url.origin);
  }
  return origins;
}

function readCaFile(r: Reader): string[] | undefined {
  const path = r.raw('CLIENT_METADATA_CA_FILE');
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    r.problems.push(
      `CLIENT_METADATA_CA_FILE=${JSON.stringify(path)}: cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
    return undefined;
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!certificates) {
    r.problems.push(
      `CLIENT_METADATA_CA_FILE=${JSON.stringify(path)}: expected PEM certificates (-----BEGIN CERTIFICATE-----)`,
    );
    return undefined;
  }
  return certificates;
}

function readClientMetadata(r: Reader): ClientMetadataConfig {
  const cacheMin = r.int('CLIENT_METADATA_CACHE_MIN', 300, 0, 86400);
  const cacheMax = r.int('CLIENT_METADATA_CACHE_MAX', 86400, 0, 604800);
  if (cacheMin > cacheMax) {
    r.problems.push(`CLIENT_METADATA_CACHE_MIN=${cacheMin} is above CLIENT_METADATA_CACHE_MAX=${cacheMax}`);
  }
  const caCertificates = readCaFile(r);
  return Object.freeze({
    enabled: r.onOff('CLIENT_METADATA_DOCUMENTS', true),
    connectTimeoutMs: r.int('CLIENT_METADATA_CONNECT_TIMEOUT_MS', 2000, 50, 30000),
    readTimeoutMs: r.int('CLIENT_METADATA_READ_TIMEOUT_MS', 3000, 50, 30000),
    cacheMin,
    cacheMax,
    cacheEntries: r.int('CLIENT_METADATA_CACHE_ENTRIES', 1000, 1, 100000),
    caCertificates: caCertificates && Object.freeze(caCertificates),
    rateLimit: r.int('RATE_LIMIT_CLIENT_METADATA', 30, 1),
  });
}

/** DATABASE_URL as it may be shown: the password (in the userinfo or `?password=`) replaced by `*****`. */
export function maskDatabaseUrl(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return databaseUrl.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:*****@');
  }
  if (url.password) url.password = '*****';
  if (url.searchParams.has('password')) url.searchParams.set('password', '*****');
  return url.toString();
}

function readDatabaseUrl(r: Reader, dataDir: string): string {
  const value = r.string('DATABASE_URL', `sqlite:${dataDir}/schoolauth.db`);
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(value)) {
    // Echoed (password masked), so a typo such as `postgress://` or `sqlite//` can be seen.
    r.problems.push(
      `DATABASE_URL=${JSON.stringify(maskDatabaseUrl(value))}: expected sqlite:<path> (or sqlite::memory:) or postgres://user@host:port/database (postgresql:// also works)`,
    );
  }
  return value;
}

const isSqlite = (databaseUrl: string) => databaseUrl.startsWith('sqlite:');

/** Reads and validates the whole configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const r = new Reader(env);
  const host = readHost(r);
  const port = r.int('PORT', 3000, 0, 65535);
  const dataDir = r.string('DATA_DIR', './data').replace(/\/+$/, '');
  const issuer = readIssuer(r, host, port);
  const metricsToken = r.raw('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    r.problems.push('METRICS_TOKEN: expected at least 16 characters (it is a bearer secret)');
  }
  const keyEncryptionSecret = r.raw('KEY_ENCRYPTION_SECRET');
  if (keyEncryptionSecret !== undefined && keyEncryptionSecret.length < 32) {
    r.problems.push('KEY_ENCRYPTION_SECRET: expected at least 32 characters');
  }
  const metricsPortRaw = r.raw('METRICS_PORT');
  const config: Config = {
    issuer,
    host,
    port,
    dataDir,
    databaseUrl: readDatabaseUrl(r, dataDir),
    logLevel: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logRequests: r.oneOf('LOG_REQUESTS', LOG_REQUESTS, 'errors'),
    logFormat: r.oneOf('LOG_FORMAT', LOG_FORMATS, 'json'),
    trustProxy: readTrustProxy(r),
    codeTtl: r.int('CODE_TTL', 60, 1, 600),
    deviceCodeTtl: r.int('DEVICE_CODE_TTL', 600, 60, 1800),
    accessTokenTtl: r.int('ACCESS_TOKEN_TTL', 3600, 1, 86400),
    idTokenTtl: r.int('ID_TOKEN_TTL', 3600, 1, 86400),
    jwksMaxAge: r.int('JWKS_MAX_AGE', 60, 0, 86400),
    refreshTokenTtl: r.int('REFRESH_TOKEN_TTL', 2592000, 1),
    refreshGrace: r.int('REFRESH_GRACE', 30, 0, 300),
    dpopProofWindow: r.int('DPOP_PROOF_WINDOW', 60, 5, 300),
    dpopNonces: r.onOff('DPOP_NONCES', false),
    sessionTtl: r.int('SESSION_TTL', 86400, 1),
    sessionAbsoluteTtl: r.int('SESSION_ABSOLUTE_TTL', 604800, 1),
    clientIdleTtl: r.int('CLIENT_IDLE_TTL', 2592000, 1),
    rateLimits: r.onOff('RATE_LIMITS', true),
    rateLimitRegister: r.int('RATE_LIMIT_REGISTER', 30, 1),
    rateLimitToken: r.int('RATE_LIMIT_TOKEN', 600, 1),
    rateLimitSignin: r.int('RATE_LIMIT_SIGNIN', 10, 1),
    rateLimitApi: r.int('RATE_LIMIT_API', 6000, 1),
    rateLimitFlushMs: r.int('RATE_LIMIT_FLUSH_MS', 1000, 10, 60_000),
    rateLimitMaxKeys: r.int('RATE_LIMIT_MAX_KEYS', 100_000, 1000),
    signinConcurrency: r.int('SIGNIN_CONCURRENCY', Math.min(availableParallelism(), 4), 1, 64),
    signinQueue: r.int('SIGNIN_QUEUE', 16, 0, 10000),
    loopbackHosts: readLoopbackHosts(r),
    corsOrigins: readCorsOrigins(r),
    uploadMaxBytes: r.int('UPLOAD_MAX_BYTES', 10 * 1024 * 1024, 1),
    pruneInterval: r.int('PRUNE_INTERVAL', 3600, 0),
    ignoredSettings: REMOVED_SETTINGS.filter((name) => env[name] !== undefined),
    metricsToken,
    metricsPort: metricsPortRaw === undefined ? undefined : r.int('METRICS_PORT', 0, 1, 65535),
    keyEncryptionSecret,
    shutdownTimeout: r.int('SHUTDOWN_TIMEOUT', 10, 1, 600),
    requestTimeout: r.int('REQUEST_TIMEOUT', 120, 1, 3600),
    idleTimeout: r.int('IDLE_TIMEOUT', 72, 1, 3600),
    databasePoolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseTimeout: r.int('DATABASE_TIMEOUT', 5, 1, 300),
    databaseNamedStatements: r.onOff('DATABASE_NAMED_STATEMENTS', true),
    seedDemo: false,
    clientMetadata: readClientMetadata(r),
  };
  // The demo school, and its password on the terminal, only where nobody else can reach them and
  // nothing else is meant to live: a loopback server on SQLite. Elsewhere `schoolauth demo` seeds
  // it on purpose (a first PostgreSQL start would otherwise fill what is meant as production).
  const demoPlace =
    isLoopbackHostname(urlHost(host)) && isLoopbackIssuer(issuer) && isSqlite(config.databaseUrl);
  const seedDemo = r.onOff('SEED_DEMO', demoPlace);
  if (seedDemo && !demoPlace) {
    r.problems.push(
      'SEED_DEMO=on: the demo school is seeded at start only by a loopback server (HOST and ISSUER) on SQLite; to seed it into this database run `schoolauth demo`',
    );
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze({
    ...config,
    seedDemo,
    loopbackHosts: Object.freeze([...config.loopbackHosts]),
    corsOrigins: Object.freeze([...config.corsOrigins]),
  });
}
