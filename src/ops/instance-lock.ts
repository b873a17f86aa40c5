/**
 * "One instance at a time" for periodic jobs: a PostgreSQL session-level advisory lock, tried
 * without waiting, so a job runs on whichever instance gets there first and the others skip
 * that round. The lock name includes the schema, so instances of different deployments sharing
 * one database never block each other. SQLite has a single process writing; the job just runs.
 */
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';

/** Runs `job` when this instance holds the lock `name`; answers `skipped` when another does. */
export async function withInstanceLock<T>(
  db: Kysely<Database>,
  name: string,
  job: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  if (dialectOf(db) !== 'postgres') return { ran: true, result: await job() };
  // Session-level locks belong to one connection: take and release on the same one.
  return db.connection().execute(async (conn) => {
    const key = sql`hashtext(${`schoolauth:${name}:`} || current_schema())`;
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}) as locked`.execute(
      conn,
    );
    if (!rows[0]?.locked) return { ran: false } as const;
    try {
      return { ran: true, result: await job() } as const;
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn);
    }
  });
}
