/**
 * Logger options: JSON lines with a request id, and nothing secret. Headers that carry
 * credentials are redacted, and the query string is logged with secret-bearing parameters
 * masked (a code or token must never reach a log line, docs/security.md "More attackers, and what stops them").
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { type DestinationStream, type Logger, type LoggerOptions, pino, stdSerializers } from 'pino';
import type { LogLevel, LogRequests } from '../config.js';
import { TOKEN_PREFIX } from '../crypto/tokens.js';

const SECRET_PARAMS = new Set([
  'code',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'client_secret',
  'code_verifier',
  'password',
  'id_token_hint',
  'csrf',
  'csrf_token',
]);

/** `_` as a URL may spell it: a client can percent-encode any character of a path. */
const UNDERSCORE = '(?:_|%5[Ff])';
/**
 * A value that looks like a secret of this server (one of its token prefixes, src/crypto/tokens.ts)
 * or a JWT (an ID token), anywhere in a URL — the path too, where a client may put a token by
 * mistake, and inside another word or after a percent-encoded space: everything after the prefix
 * up to the next delimiter (`/ ? & # ; =`) is masked, the prefix kept to say what it was.
 */
const TOKEN_LOOKING = new RegExp(
  `(${Object.values(TOKEN_PREFIX)
    .map((prefix) => prefix.replaceAll('_', UNDERSCORE))
    .join('|')})[^/?&#;=\\s]+|eyJ[\\w-]*\\.[\\w-]+\\.[\\w-]*`,
  'g',
);

/** `url` as it may be logged: token-looking values and secret query parameters masked. */
export function maskUrl(url: string): string {
  return maskQuery(
    url.replace(TOKEN_LOOKING, (_match, prefix: string | undefined) => `${prefix ?? ''}${CENSOR}`),
  );
}

function maskQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replaceAll('+', ' '));
      } catch {
        // keep the raw name
      }
      return SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** Field names whose values are never written, at the top level of a log call or one level below. */
const SECRET_FIELDS = new Set([...SECRET_PARAMS, 'authorization', 'cookie', 'set-cookie', 'x-csrf-token']);
const CENSOR = '[redacted]';
/**
 * An error's own fields are censored as any other object's, but for `code`: on an error it is
 * Node's or the database's code (`ECONNRESET`, `40P01`), which an operator needs, never an OAuth
 * authorization code.
 */
const SECRET_ERROR_FIELDS = new Set([...SECRET_FIELDS].filter((name) => name !== 'code'));
/** Keys pino serialises itself (request, reply, error): their serializers already keep only safe fields. */
const SERIALISED = new Set(['req', 'res', 'err']);

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A copy of `record` with its secret fields censored, or `record` itself when it has none. */
function censored(
  record: Record<string, unknown>,
  secret: ReadonlySet<string> = SECRET_FIELDS,
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    if (secret.has(key.toLowerCase())) {
      copy ??= { ...record };
      copy[key] = CENSOR;
    }
  }
  return copy ?? record;
}

/**
 * Censors secret fields of the logged object and of the plain objects it holds (`{ body }`,
 * `{ headers }`). Replaces pino's `redact` with wildcard paths, which cloned and walked every
 * line and was most of the cost of the one request line (docs/performance.md); this one only
 * copies an object that holds a secret. Request, reply and error go through serializers that
 * never emit headers or bodies.
 */
export function redactSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    if (SERIALISED.has(key)) continue;
    const value = object[key];
    const safe = SECRET_FIELDS.has(key.toLowerCase())
      ? CENSOR
      : isPlainRecord(value)
        ? censored(value)
        : value;
    if (safe !== value) {
      copy ??= { ...object };
      copy[key] = safe;
    }
  }
  return copy ?? object;
}

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    formatters: { log: redactSecrets },
    serializers: {
      // An error's own fields are logged too: a secret-named one is censored like any other.
      err: (error: Error) =>
        censored(stdSerializers.err(error) as unknown as Record<string, unknown>, SECRET_ERROR_FIELDS),
      req(request: FastifyRequest) {
        return {
          method: request.method,
          url: maskUrl(request.url),
          remoteAddress: request.ip,
          userAgent: request.headers['user-agent'],
        };
      },
    },
  };
}

/** Where an error answer keeps its `error` code for the request's log line (answeredError). */
const ERROR_CODE = Symbol('answered error code');

/**
 * Notes the `error` code a failed answer carries (the JSON body's `error`, or an error page's code),
 * so the request's log line names it: support reads `invalid_grant` or `invalid_client` beside the
 * status without the body, which is never logged. Only codes from the closed unions of errors.ts
 * and the pages' problems arrive here, never request data.
 */
export function noteErrorCode(reply: FastifyReply, code: string): void {
  (reply as unknown as Record<symbol, string>)[ERROR_CODE] = code;
}

const answeredError = (reply: FastifyReply): string | undefined =>
  (reply as unknown as Record<symbol, string | undefined>)[ERROR_CODE];

/** A request at least this slow is logged under LOG_REQUESTS=errors too (milliseconds). */
export const SLOW_REQUEST_MS = 1000;

/** Writes a request's line, and counts it, when its answer has ended (request-arrival.ts). */
export type RequestEnded = (
  request: FastifyRequest,
  reply: FastifyReply,
  elapsedMs: number,
  error: Error | undefined,
) => void;

/**
 * One log line per request, written when its answer ends: `request completed` (or `request
 * errored` with `err`) with flat fields — method, masked url, statusCode, responseTime (ms),
 * remoteAddress, userAgent, and for an error answer its `error` code — and the request id bound
 * to the request's logger. Fastify's default
 * adds an "incoming request" line and nests serialised `req`/`res` objects; the second line and
 * the serialisers were most of the logging cost of a metadata GET (docs/performance.md).
 *
 * LOG_REQUESTS=errors (the default) writes the line only for answers ≥ 400 and requests slower
 * than SLOW_REQUEST_MS; every answer is counted by `observe` (the request metrics, in /metrics by
 * route, status and latency). A line per successful request cost more CPU than serving a
 * metadata document (docs/decisions.md).
 */
export function requestLines(
  policy: LogRequests,
  observe: (request: FastifyRequest, reply: FastifyReply, elapsedMs: number) => void = () => undefined,
): RequestEnded {
  return (request, reply, elapsedMs, error) => {
    observe(request, reply, elapsedMs);
    if (policy === 'errors' && !error && reply.statusCode < 400 && elapsedMs < SLOW_REQUEST_MS) return;
    const fields: Record<string, unknown> = {
      method: request.method,
      url: maskUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: elapsedMs,
      remoteAddress: request.ip,
      userAgent: request.headers['user-agent'],
    };
    const code = answeredError(reply);
    if (code !== undefined) fields.error = code;
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  };
}

/**
 * LOG_FORMAT=pretty: pino-pretty, in this process, writing one readable line per entry to stdout
 * (colours only on a terminal). The entries are the JSON ones after redaction (the formatters and
 * serializers above run first), so nothing reaches it that the JSON lines would not carry. Loaded
 * only when asked for: JSON stays the default and what log collectors read.
 */
export async function prettyStream(): Promise<NodeJS.WritableStream> {
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    destination: 1,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    // Written at once: a developer reads the line as the request ends, and none is lost at exit.
    sync: true,
    // A request line's `error` is its answer's code (a string), not an error object to unfold.
    errorLikeObjectKeys: ['err'],
  });
}

/**
 * The server's logger: JSON lines to `stream` (stdout when none). Fastify is given none of its
 * own (server.ts): `app.log` is this one, and every request gets a child of it.
 */
export function createLogger(level: LogLevel, stream?: NodeJS.WritableStream | DestinationStream): Logger {
  return stream ? pino(loggerOptions(level), stream as DestinationStream) : pino(loggerOptions(level));
}

/**
 * The logger of the request with this id: a child of `root` bound to `reqId`. Set on the request
 * and its reply by the first root hook (request-arrival.ts).
 */
export function requestLogger(root: FastifyBaseLogger, requestId: string): FastifyBaseLogger {
  return root.child({ reqId: requestId });
}
