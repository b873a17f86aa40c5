/**
 * The sign-in throttle's rows (docs/security.md "Sign-in throttling"; the policy is
 * src/rate-limit/signin-throttle.ts). An attempt is counted by one atomic upsert per key
 * (`INSERT … ON CONFLICT DO UPDATE … RETURNING`, the same on SQLite and PostgreSQL, so global
 * across instances): the statement either counts the attempt and, when this count reaches the
 * limit, blocks the key at once — or, while the key is blocked, refuses it and changes nothing
 * but the refusal count.
 */
import type { Kysely, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import type { AttemptCount, BackoffSchedule, SigninThrottle } from './contract/signin-throttle.js';
import type { Database } from './schema.js';

const column = (name: keyof Database['signin_throttle']) => sql.ref(`signin_throttle.${name}`);

/**
 * `CASE` over a count expression: `value(f)` for every count at which the back-off still changes.
 * Numbers are inlined literals (computed by the policy, never input) so both dialects read them
 * as integers.
 */
function byCount(count: RawBuilder<number>, plan: BackoffSchedule, value: (failures: number) => number) {
  const { limit, steps } = plan;
  const whens = [sql`when ${count} < ${sql.lit(limit)} then ${sql.lit(value(limit - 1))}`];
  for (let f = limit; f < limit + steps; f++) {
    whens.push(sql`when ${count} = ${sql.lit(f)} then ${sql.lit(value(f))}`);
  }
  return sql<number>`case ${sql.join(whens, sql` `)} else ${sql.lit(value(limit + steps))} end`;
}

/** Counts one attempt on `key` unless the key is blocked: one atomic statement. */
async function countAttempt(
  db: Kysely<Database>,
  key: string,
  plan: BackoffSchedule,
  now: number,
): Promise<AttemptCount> {
  const [failures, blockedUntil, forgetAt, refused] = (
    ['failures', 'blocked_until', 'forget_at', 'refused'] as const
  ).map(column);
  // Every right-hand side reads the row as it was before this statement (SQL UPDATE semantics).
  const forgotten = sql`${forgetAt} <= ${sql.lit(now)}`;
  const blocked = sql`${blockedUntil} > ${sql.lit(now)}`;
  const next = sql<number>`${failures} + 1`;
  const first = { blocked: plan.blockedUntil(1), forget: plan.forgetAt(1) };
  const row = await db
    .insertInto('signin_throttle')
    .values({ key, failures: 1, blocked_until: first.blocked, forget_at: first.forget, refused: 0 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql`case when ${forgotten} then 1 when ${blocked} then ${failures} else ${next} end`,
        blocked_until: sql`case when ${forgotten} then ${sql.lit(first.blocked)} when ${blocked} then ${blockedUntil}
          else ${byCount(next, plan, plan.blockedUntil)} end`,
        forget_at: sql`case when ${forgotten} then ${sql.lit(first.forget)} when ${blocked} then ${forgetAt}
          else ${byCount(next, plan, plan.forgetAt)} end`,
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
async function refundAttempt(
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

export function signinThrottleSection(db: Kysely<Database>): SigninThrottle {
  return {
    count: (key, plan, now) => countAttempt(db, key, plan, now),
    refund: (key, failures, limit, now) => refundAttempt(db, key, failures, limit, now),
    async forget(key) {
      await db.deleteFrom('signin_throttle').where('key', '=', key).execute();
    },
  };
}
