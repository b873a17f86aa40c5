/**
 * Fixed-window counters in the shared `rate_limits` table, so a limit is global across every
 * instance on one PostgreSQL database (and works the same on SQLite). One atomic upsert per hit:
 * no read-modify-write race between instances.
 */
import type { Kysely } from 'kysely';
import { hashSecret } from '../crypto/tokens.js';
import type { Database } from '../storage/schema.js';

export interface HitResult {
  readonly allowed: boolean;
  /** Hits in the current window, this one included. */
  readonly count: number;
  /** Seconds until the window resets (at least 1). */
  readonly retryAfter: number;
}

/** A bounded, log-safe key: long or secret-bearing values are replaced by their hash. */
export function limitKey(scope: string, value: string, secret = false): string {
  return `${scope}:${secret || value.length > 128 ? hashSecret(value) : value}`;
}

/** Counts one hit on `key`; allowed while the window holds at most `limit` hits. */
export async function hit(
  db: Kysely<Database>,
  key: string,
  limit: number,
  windowSeconds: number,
  now: number,
): Promise<HitResult> {
  const row = await db
    .insertInto('rate_limits')
    .values({ key, count: 1, reset_at: now + windowSeconds })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({
        count: eb
          .case()
          .when('rate_limits.reset_at', '<=', now)
          .then(1)
          .else(eb('rate_limits.count', '+', 1))
          .end(),
        reset_at: eb
          .case()
          .when('rate_limits.reset_at', '<=', now)
          .then(now + windowSeconds)
          .else(eb.ref('rate_limits.reset_at'))
          .end(),
      })),
    )
    .returning(['count', 'reset_at'])
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  return { allowed: count <= limit, count, retryAfter: Math.max(1, Number(row.reset_at) - now) };
}
