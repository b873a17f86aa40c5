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
import type { Kysely, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../storage/schema.js';
import { clientNetwork } from './client-network.js';
import { limitKey } from './counter.js';

const SIGNIN_MEMORY = 15 * 60;
const FIRST_DELAY = 60;
const MAX_DELAY = 60 * 60;
/** Doublings from FIRST_DELAY until MAX_DELAY is reached. */
const DOUBLINGS = Math.ceil(Math.log2(MAX_DELAY / FIRST_DELAY));

type Ctx = Pick<AppContext, 'db' | 'config' | 'now'>;

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

export interface AttemptCount {
  /** False: the key is blocked; nothing was counted. */
  readonly counted: boolean;
  /** Attempts counted on the key, this one included. */
  readonly failures: number;
  /** Seconds until the key takes attempts again (0 when it is not blocked). */
  readonly retryAfter: number;
}

const column = (name: keyof Database['signin_throttle']) => sql.ref(`signin_throttle.${name}`);

/**
 * `CASE` over a count expression: `value(f)` for every count at which the back-off still changes.
 * Numbers are inlined literals (computed here, never input) so both dialects read them as integers.
 */
function byCount(count: RawBuilder<number>, limit: number, value: (failures: number) => number) {
  const whens = [sql`when ${count} < ${sql.lit(limit)} then ${sql.lit(value(limit - 1))}`];
  for (let f = limit; f < limit + DOUBLINGS; f++) {
    whens.push(sql`when ${count} = ${sql.lit(f)} then ${sql.lit(value(f))}`);
  }
  return sql<number>`case ${sql.join(whens, sql` `)} else ${sql.lit(value(limit + DOUBLINGS))} end`;
}

/** Counts one attempt on `key` unless the key is blocked: one atomic statement. */
export async function countAttempt(
  db: Kysely<Database>,
  key: string,
  limit: number,
  now: number,
): Promise<AttemptCount> {
  const [failures, blockedUntil, forgetAt, refused] = (
    ['failures', 'blocked_until', 'forget_at', 'refused'] as const
  ).map(column);
  // Every right-hand side reads the row as it was before this statement (SQL UPDATE semantics).
  const forgotten = sql`${forgetAt} <= ${sql.lit(now)}`;
  const blocked = sql`${blockedUntil} > ${sql.lit(now)}`;
  const next = sql<number>`${failures} + 1`;
  const first = { blocked: now + backoffDelay(1, limit), forget: now + memory(1, limit) };
  const row = await db
    .insertInto('signin_throttle')
    .values({ key, failures: 1, blocked_until: first.blocked, forget_at: first.forget, refused: 0 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql`case when ${forgotten} then 1 when ${blocked} then ${failures} else ${next} end`,
        blocked_until: sql`case when ${forgotten} then ${sql.lit(first.blocked)} when ${blocked} then ${blockedUntil}
          else ${byCount(next, limit, (f) => now + backoffDelay(f, limit))} end`,
        forget_at: sql`case when ${forgotten} then ${sql.lit(first.forget)} when ${blocked} then ${forgetAt}
          else ${byCount(next, limit, (f) => now + memory(f, limit))} end`,
        refused: sql`case when ${forgotten} then 0 when ${blocked} then ${refused} + 1 else 0 end`,
      }),
    )
    .returning(['failures', 'blocked_until', 'refused'])
    .executeTakeFirstOrThrow();
  const counted = Number(row.refused) === 0;
  return {
    counted,
    failures: Number(row.failures),
    retryAfter: counted ? 0 : Math.max(1, Number(row.blocked_until) - now),
  };
}

/**
 * Takes back an attempt counted as the `failures`-th on its key. When that attempt is the one
 * that started a block and still the last counted, the block is lifted too: the key is as if the
 * attempt had never been made (earlier blocks had passed, or it would not have been counted).
 * A row left with nothing counted and no block is deleted: it says nothing an absent row does not
 * (the next attempt counts as the first either way), and a refused attempt must leave no row keyed
 * by the email it made up (docs/security.md "Sign-in throttling").
 */
export async function refundAttempt(
  db: Kysely<Database>,
  key: string,
  failures: number,
  limit: number,
  now: number,
): Promise<void> {
  const startedBlock = failures >= limit;
  await db
    .updateTable('signin_throttle')
    .set((eb) => ({
      failures: eb('failures', '-', 1),
      ...(startedBlock
        ? {
            blocked_until: sql<number>`case when ${column('failures')} = ${sql.lit(failures)} then ${sql.lit(now)} else ${column('blocked_until')} end`,
          }
        : {}),
    }))
    .where('key', '=', key)
    .where('failures', '>', 0)
    .execute();
  // A separate statement after the refund: an attempt counted in between makes failures 1 again,
  // and then the row stays.
  await db
    .deleteFrom('signin_throttle')
    .where('key', '=', key)
    .where('failures', '=', 0)
    .where('blocked_until', '<=', now)
    .execute();
}

/** Forgets every attempt counted on `key`. */
export async function forgetAttempts(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom('signin_throttle').where('key', '=', key).execute();
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
    const result = await countAttempt(ctx.db, key.key, ctx.config.rateLimitSignin, now);
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
    await refundAttempt(ctx.db, key, failures, ctx.config.rateLimitSignin, now);
  }
}

/**
 * The password was right: the account's (or trusted browser's) count is forgotten; the IP's
 * attempt is refunded, not cleared, so one valid password does not unlock guessing at others.
 */
export async function signinSucceeded(ctx: Ctx, counted: readonly CountedKey[]): Promise<void> {
  const now = ctx.now();
  for (const { kind, key, failures } of counted) {
    if (kind === 'ip') await refundAttempt(ctx.db, key, failures, ctx.config.rateLimitSignin, now);
    else await forgetAttempts(ctx.db, key);
  }
}
