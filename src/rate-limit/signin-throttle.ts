/**
 * Sign-in throttling per account and per client IP (SPEC §9) with growing back-off. Failures
 * are remembered for 15 minutes after the last one; from the RATE_LIMIT_SIGNIN-th failure on,
 * each further failure doubles the wait (1 min, 2, 4, … up to 1 hour). A blocked attempt is
 * answered 429 without checking the password, so guessing stops; a successful sign-in clears
 * the account's count (not the IP's, so one valid account does not unlock guessing others).
 *
 * Stored in `rate_limits`: `count` = consecutive failures, `reset_at` = when they are forgotten.
 */
import type { AppContext } from '../context.js';
import { hit, limitKey } from './counter.js';

export const SIGNIN_MEMORY = 15 * 60;
const FIRST_DELAY = 60;
const MAX_DELAY = 60 * 60;

type Ctx = Pick<AppContext, 'db' | 'config' | 'now'>;

/** Seconds a key is blocked after its `failures`-th failure. */
export function backoffDelay(failures: number, limit: number): number {
  if (failures < limit) return 0;
  return Math.min(MAX_DELAY, FIRST_DELAY * 2 ** Math.min(failures - limit, 16));
}

function memory(failures: number, limit: number): number {
  return Math.max(SIGNIN_MEMORY, backoffDelay(failures, limit));
}

function accountKey(email: string): string {
  return limitKey('signin:account', email.trim().toLowerCase());
}

function keysFor(email: string, ip: string): string[] {
  const keys = [limitKey('signin:ip', ip)];
  return email.trim() === '' ? keys : [...keys, accountKey(email)];
}

/** Seconds until sign-in may be tried again for this account or from this IP; 0 when allowed. */
export async function signinRetryAfter(ctx: Ctx, email: string, ip: string): Promise<number> {
  if (!ctx.config.rateLimits) return 0;
  const now = ctx.now();
  const limit = ctx.config.rateLimitSignin;
  const rows = await ctx.db
    .selectFrom('rate_limits')
    .selectAll()
    .where('key', 'in', keysFor(email, ip))
    .where('reset_at', '>', now)
    .execute();
  let wait = 0;
  for (const row of rows) {
    const failures = Number(row.count);
    const lastFailure = Number(row.reset_at) - memory(failures, limit);
    wait = Math.max(wait, lastFailure + backoffDelay(failures, limit) - now);
  }
  return wait;
}

/** Counts a failed sign-in against the account and the IP. */
export async function recordSigninFailure(ctx: Ctx, email: string, ip: string): Promise<void> {
  if (!ctx.config.rateLimits) return;
  const now = ctx.now();
  const limit = ctx.config.rateLimitSignin;
  for (const key of keysFor(email, ip)) {
    const { count } = await hit(ctx.db, key, Number.MAX_SAFE_INTEGER, SIGNIN_MEMORY, now);
    // The window restarts at every failure, and outlasts the back-off once that is longer.
    await ctx.db
      .updateTable('rate_limits')
      .set({ reset_at: now + memory(count, limit) })
      .where('key', '=', key)
      .execute();
  }
}

/** A successful sign-in forgets the account's failures. */
export async function clearSigninFailures(ctx: Ctx, email: string): Promise<void> {
  if (!ctx.config.rateLimits) return;
  await ctx.db.deleteFrom('rate_limits').where('key', '=', accountKey(email)).execute();
}
