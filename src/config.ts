/**
 * The one place that reads the environment. Every variable is validated at start and every
 * problem is reported at once, so an operator fixes a deployment in one go.
 */

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
  /** Fastify `trustProxy`: false, true, a hop count, or a comma-separated address list. */
  readonly trustProxy: boolean | number | string;
  readonly codeTtl: number;
  readonly accessTokenTtl: number;
  readonly idTokenTtl: number;
  readonly refreshTokenTtl: number;
  readonly refreshGrace: number;
  readonly sessionTtl: number;
  readonly sessionAbsoluteTtl: number;
  /** A dynamic client with no live grant and no use for this long is pruned. */
  readonly clientIdleTtl: number;
  readonly rateLimits: boolean;
  readonly rateLimitRegister: number;
  readonly rateLimitToken: number;
  readonly rateLimitSignin: number;
  readonly rateLimitApi: number;
  /** Hosts accepted in self-registered loopback redirect URIs. */
  readonly loopbackHosts: readonly string[];
  readonly uploadMaxBytes: number;
  readonly pruneInterval: number;
  /** Bearer secret for /metrics; when unset /metrics is served only on METRICS_PORT (if set). */
  readonly metricsToken: string | undefined;
  readonly metricsPort: number | undefined;
  readonly keyEncryptionSecret: string | undefined;
  readonly shutdownTimeout: number;
  /** PostgreSQL connections per instance (plus one for key-change notifications). */
  readonly databasePoolSize: number;
  /** Seconds a request waits for the database (a connection, a statement, a SQLite lock) before 503. */
  readonly databaseTimeout: number;
  /** Seed a demo school on first start. Default: only for a loopback issuer. */
  readonly seedDemo: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export type LogRequests = 'all' | 'errors';
const LOG_REQUESTS: readonly LogRequests[] = ['all', 'errors'];
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

function readIssuer(r: Reader, host: string, port: number): string {
  const value = r.raw('ISSUER');
  const fallback = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (value === undefined) return host === '0.0.0.0' || host === '::' ? `http://127.0.0.1:${port}` : fallback;
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

function readDatabaseUrl(r: Reader, dataDir: string): string {
  const value = r.string('DATABASE_URL', `sqlite:${dataDir}/schoolauth.db`);
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(value)) {
    r.problems.push(
      `DATABASE_URL: expected sqlite:<path> (or sqlite::memory:) or postgres://user@host:port/database`,
    );
  }
  return value;
}

/** Reads and validates the whole configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const r = new Reader(env);
  const host = r.string('HOST', '127.0.0.1');
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
    trustProxy: readTrustProxy(r),
    codeTtl: r.int('CODE_TTL', 60, 1, 600),
    accessTokenTtl: r.int('ACCESS_TOKEN_TTL', 3600, 1, 86400),
    idTokenTtl: r.int('ID_TOKEN_TTL', 3600, 1, 86400),
    refreshTokenTtl: r.int('REFRESH_TOKEN_TTL', 2592000, 1),
    refreshGrace: r.int('REFRESH_GRACE', 30, 0, 300),
    sessionTtl: r.int('SESSION_TTL', 86400, 1),
    sessionAbsoluteTtl: r.int('SESSION_ABSOLUTE_TTL', 604800, 1),
    clientIdleTtl: r.int('CLIENT_IDLE_TTL', 2592000, 1),
    rateLimits: r.onOff('RATE_LIMITS', true),
    rateLimitRegister: r.int('RATE_LIMIT_REGISTER', 30, 1),
    rateLimitToken: r.int('RATE_LIMIT_TOKEN', 600, 1),
    rateLimitSignin: r.int('RATE_LIMIT_SIGNIN', 10, 1),
    rateLimitApi: r.int('RATE_LIMIT_API', 6000, 1),
    loopbackHosts: readLoopbackHosts(r),
    uploadMaxBytes: r.int('UPLOAD_MAX_BYTES', 10 * 1024 * 1024, 1),
    pruneInterval: r.int('PRUNE_INTERVAL', 3600, 0),
    metricsToken,
    metricsPort: metricsPortRaw === undefined ? undefined : r.int('METRICS_PORT', 0, 1, 65535),
    keyEncryptionSecret,
    shutdownTimeout: r.int('SHUTDOWN_TIMEOUT', 10, 1, 600),
    databasePoolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseTimeout: r.int('DATABASE_TIMEOUT', 5, 1, 300),
    seedDemo: false,
  };
  const seedDemo = r.onOff('SEED_DEMO', isLoopbackHostname(new URL(`${config.issuer}/`).hostname));
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze({ ...config, seedDemo, loopbackHosts: Object.freeze([...config.loopbackHosts]) });
}
