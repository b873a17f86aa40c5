/**
 * Sign-in throttling (docs/security.md "Sign-in throttling") per account, per client IP and per trusted browser, with a growing
 * back-off. An attempt is COUNTED BEFORE its password is checked, by one atomic upsert per key
 * (`INSERT … ON CONFLICT DO UPDATE … RETURNING`, the same on SQLite and PostgreSQL, so global
 * across instances): the statement either counts the attempt and, when this count reaches the
 * limit, blocks the key at once — or, while the key is blocked, refuses it and changes nothing
 * but the refusal count. So N concurrent attempts get at most RATE_LIMIT_SIGNIN password checks
 * per key; a check-then-count race cannot exist.
 *
 * Back-off: the RATE_LIMIT_SIGNIN-th counted attempt blocks the key for 1 minute, each further
 * one doubles the wait (2, 4, … up to 1 hour). Counts are forgotten 15 minutes after the last
 * counted attempt (longer while a back-off outlasts that). An attempt whose password turns out
 * right, or that is never checked (another key refused it, or the server was busy), is refunded
 * or cleared by the caller: see src/sessions/sign-in.ts and docs/security.md.
 */
import type { AppContext } from '../context.js';
import type { AttemptCount, BackoffSchedule, SigninThrottle } from '../storage/contract/signin-throttle.js';
import { clientNetwork } from './client-network.js';
import { limitKey } from './limit-key.js';

const SIGNIN_MEMORY = 15 * 60;
const FIRST_DELAY = 60;
const MAX_DELAY = 60 * 60;
/** Doublings from FIRST_DELAY until MAX_DELAY is reached. */
const DOUBLINGS = Math.ceil(Math.log2(MAX_DELAY / FIRST_DELAY));

type Ctx = Pick<AppContext, 'store' | 'config' | 'now'>;

/** Seconds a key is blocked after its `failures`-th counted attempt. */
export function backoffDelay(failures: number, limit: number): number {
  if (failures < limit) return 0;
  return Math.min(MAX_DELAY, FIRST_DELAY * 2 ** Math.min(failures - limit, DOUBLINGS));
}

function memory(failures: number, limit: number): number {
  return Math.max(SIGNIN_MEMORY, backoffDelay(failures, limit));
}

/** What an attempt is counted against. */
export type SigninKeyKind = 'account' | 'ip' | 'device';

export interface SigninKey {
  readonly kind: SigninKeyKind;
  readonly key: string;
}

export const signinKey = {
  /** Keyed by the email as typed (normalised), so unknown emails are throttled like real ones. */
  account: (email: string): SigninKey => ({ kind: 'account', key: limitKey('signin:account', email) }),
  ip: (ip: string): SigninKey => ({ kind: 'ip', key: limitKey('signin:ip', clientNetwork(ip)) }),
  /** A trusted browser, by its device cookie's nonce (stored hashed, like every cookie value). */
  device: (nonce: string): SigninKey => ({ kind: 'device', key: limitKey('signin:device', nonce, true) }),
};

/** The back-off of `limit`, as the store's count applies it at `now` (storage/signin-throttle.repository.ts). */
function schedule(limit: number, now: number): BackoffSchedule {
  return {
    limit,
    steps: DOUBLINGS,
    blockedUntil: (failures) => now + backoffDelay(failures, limit),
    forgetAt: (failures) => now + memory(failures, limit),
  };
}

/** Counts one attempt on `key` unless the key is blocked: one atomic statement. */
export function countAttempt(
  throttle: SigninThrottle,
  key: string,
  limit: number,
  now: number,
): Promise<AttemptCount> {
  return throttle.count(key, schedule(limit, now), now);
}

/**
 * Takes back an attempt counted as the `failures`-th on its key (storage/signin-throttle.repository.ts
 * refundAttempt: a block it started is lifted, an empty row deleted).
 */
export function refundAttempt(
  throttle: SigninThrottle,
  key: string,
  failures: number,
  limit: number,
  now: number,
): Promise<void> {
  return throttle.refund(key, failures, limit, now);
}

export interface CountedKey extends SigninKey {
  readonly failures: number;
}

export type Admission =
  | { readonly admitted: true; readonly counted: readonly CountedKey[] }
  | { readonly admitted: false; readonly retryAfter: number };

/**
 * Counts one attempt on each key, in order. When a key refuses, the keys already counted are
 * refunded (the password will not be checked) and the answer is that key's wait.
 */
export async function admitSignin(ctx: Ctx, keys: readonly SigninKey[]): Promise<Admission> {
  if (!ctx.config.rateLimits) return { admitted: true, counted: [] };
  const now = ctx.now();
  const counted: CountedKey[] = [];
  for (const key of keys) {
    const result = await countAttempt(ctx.store.signinThrottle, key.key, ctx.config.rateLimitSignin, now);
    if (!result.counted) {
      await refundSignin(ctx, counted);
      return { admitted: false, retryAfter: result.retryAfter };
    }
    counted.push({ ...key, failures: result.failures });
  }
  return { admitted: true, counted };
}

/** The attempt was not checked (another key refused it, or no check slot was free): undo it. */
export async function refundSignin(ctx: Ctx, counted: readonly CountedKey[]): Promise<void> {
  const now = ctx.now();
  for (const { key, failures } of counted) {
    await refundAttempt(ctx.store.signinThrottle, key, failures, ctx.config.rateLimitSignin, now);
  }
}

/**
 * The password was right: the account's (or trusted browser's) count is forgotten; the IP's
 * attempt is refunded, not cleared, so one valid password does not unlock guessing at others.
 */
export async function signinSucceeded(ctx: Ctx, counted: readonly CountedKey[]): Promise<void> {
  const now = ctx.now();
  for (const { kind, key, failures } of counted) {
    if (kind === 'ip')
      await refundAttempt(ctx.store.signinThrottle, key, failures, ctx.config.rateLimitSignin, now);
    else await ctx.store.signinThrottle.forget(key);
  }
}

export type { AttemptCount };
