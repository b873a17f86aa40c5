/**
 * The per-endpoint limits (docs/configuration.md "Rate limits"): registration per client IP, the token endpoint
 * per confidential client that proved itself with its secret, the API per valid access token.
 * Everything else counts against the client IP: a key the caller can make up (an unknown
 * client_id, a made-up bearer token), so junk neither escapes the limit nor creates a counter per
 * request (issue 19, item 5); and a key a stranger can name without proving anything (a public
 * or unauthenticated client_id), so a stranger cannot spend another's allowance (issue 44, item 1).
 *
 * Counts live in this process's memory (window-counters.ts): a check never touches the
 * database. On PostgreSQL they are added to the shared table every RATE_LIMIT_FLUSH_MS
 * (counter-sync.ts); on SQLite one server process owns the file, so its memory is the whole truth
 * and nothing is written. RATE_LIMITS=off turns every limit off.
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { AppContext } from '../context.js';
import type { Client } from '../storage/schema.js';
import { clientNetwork } from './client-network.js';
import { type CounterSync, type SyncLog, startCounterSync } from './counter-sync.js';
import { limitKey } from './limit-key.js';
import { rateLimited } from './rate-limited.js';
import { WindowCounters } from './window-counters.js';

const MINUTE = 60;

export interface EndpointLimits {
  /** `onRequest` hooks of POST /api/oauth/register: RATE_LIMIT_REGISTER per minute per client IP. */
  readonly registration: readonly onRequestHookHandler[];
  /**
   * Counts a token request: against `proven`, a confidential client that authenticated with its
   * secret, else against the client IP (a public client, whose client_id anyone can send, and
   * every request whose client authentication failed). Throws 429 over RATE_LIMIT_TOKEN per
   * minute. Call once client authentication is judged, before the grant runs.
   */
  token(request: FastifyRequest, proven: Client | undefined): void;
  /**
   * Counts an API request: against the access token (by its stored key) when it is valid, else
   * against the client IP. Throws 429 over RATE_LIMIT_API per minute.
   */
  api(request: FastifyRequest, tokenHash: string | undefined): void;
  /**
   * Counts a fetch of a client metadata document (a cache miss at /oauth/authorize, docs/security.md "Rate limits")
   * against the client IP: the seconds to wait when over RATE_LIMIT_CLIENT_METADATA per minute,
   * else undefined. It does not throw: the authorization endpoint answers with a page.
   */
  clientMetadata(ip: string): number | undefined;
  /**
   * Counts a user code typed on the verification page (RFC 8628 §5.1, §5.2) against the browser
   * (its verification cookie) and the client IP: USER_CODE_PER_BROWSER and USER_CODE_PER_ADDRESS
   * per USER_CODE_WINDOW seconds. Counted before the code is looked up, so concurrent guesses
   * cannot pass the limit together; the caller refunds a code that turns out right, so only wrong
   * codes count. `retryAfter` is set when either key is over its limit.
   */
  userCode(ip: string, browser: string | undefined): UserCodeCount;
  /** PostgreSQL: sends this instance's counts to the shared table now (tests; the timer does it). */
  flush(): Promise<void>;
  /** Stops the flush timer after a last flush; the app's onClose calls it. */
  stop(): Promise<void>;
}

/** Wrong user codes allowed per browser, per address, in a window of this many seconds (docs/security.md). */
export const USER_CODE_PER_BROWSER = 5;
export const USER_CODE_PER_ADDRESS = 20;
export const USER_CODE_WINDOW = 5 * MINUTE;

export interface UserCodeCount {
  /** Seconds to wait when over a limit, else undefined. */
  readonly retryAfter: number | undefined;
  /** The code was right: takes the count back. */
  refund(): void;
}

const UNCOUNTED: UserCodeCount = { retryAfter: undefined, refund: () => undefined };

const OFF: EndpointLimits = {
  userCode: () => UNCOUNTED,
  registration: [],
  token: () => undefined,
  api: () => undefined,
  clientMetadata: () => undefined,
  flush: async () => undefined,
  stop: async () => undefined,
};

type Ctx = Pick<AppContext, 'store' | 'config' | 'now'>;

/** The limits of one app: their counters, and on PostgreSQL the timer that shares them. */
export function createEndpointLimits(ctx: Ctx, log: SyncLog): EndpointLimits {
  const { config } = ctx;
  if (!config.rateLimits) return OFF;
  const counters = new WindowCounters(config.rateLimitMaxKeys);
  const sync: CounterSync | undefined = ctx.store.rateLimitWindows.shared
    ? startCounterSync(counters, ctx.store.rateLimitWindows, {
        intervalMs: config.rateLimitFlushMs,
        now: ctx.now,
        log,
      })
    : undefined;
  const check = (key: string, limit: number, what: string) => {
    const result = counters.hit(key, limit, MINUTE, ctx.now());
    if (!result.allowed) throw rateLimited(result.retryAfter, what);
  };
  return {
    registration: [
      (request, _reply, done) => {
        try {
          check(
            limitKey('register:ip', clientNetwork(request.ip)),
            config.rateLimitRegister,
            'registrations from this address',
          );
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
    ],
    token(request, proven) {
      if (proven)
        check(limitKey('token:client', proven.id), config.rateLimitToken, 'token requests for this client');
      else
        check(
          limitKey('token:ip', clientNetwork(request.ip)),
          config.rateLimitToken,
          'token requests from this address',
        );
    },
    api(request, tokenHash) {
      if (tokenHash !== undefined) {
        check(`api:token:${tokenHash}`, config.rateLimitApi, 'API requests with this token');
      } else {
        check(
          limitKey('api:ip', clientNetwork(request.ip)),
          config.rateLimitApi,
          'API requests from this address',
        );
      }
    },
    clientMetadata(ip) {
      const result = counters.hit(
        limitKey('client_metadata:ip', clientNetwork(ip)),
        config.clientMetadata.rateLimit,
        MINUTE,
        ctx.now(),
      );
      return result.allowed ? undefined : result.retryAfter;
    },
    userCode(ip, browser) {
      const now = ctx.now();
      const keys: Array<[string, number]> = [
        [limitKey('user_code:ip', clientNetwork(ip)), USER_CODE_PER_ADDRESS],
      ];
      if (browser) keys.push([limitKey('user_code:browser', browser, true), USER_CODE_PER_BROWSER]);
      let retryAfter: number | undefined;
      for (const [key, limit] of keys) {
        const result = counters.hit(key, limit, USER_CODE_WINDOW, now);
        if (!result.allowed) retryAfter = Math.max(retryAfter ?? 0, result.retryAfter);
      }
      return {
        retryAfter,
        refund: () => {
          for (const [key] of keys) counters.refund(key, USER_CODE_WINDOW, now);
        },
      };
    },
    flush: async () => sync?.flush(),
    stop: async () => sync?.stop(),
  };
}
