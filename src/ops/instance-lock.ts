/**
 * "One instance at a time", with PostgreSQL session-level advisory locks. For periodic jobs the
 * lock is tried without waiting, so a job runs on whichever instance gets there first and the
 * others skip that round; for first-start steps it is waited for. The lock name includes the
 * schema, so instances of different deployments sharing one database never block each other.
 * SQLite has a single process writing; the job just runs.
 */
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';

const lockKey = (name: string) => sql`hashtext(${`schoolauth:${name}:`} || current_schema())`;

/** Runs `job` when this instance holds the lock `name`; answers `skipped` when another does. */
export async function withInstanceLock<T>(
  db: Kysely<Database>,
  name: string,
  job: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  if (dialectOf(db) !== 'postgres') return { ran: true, result: await job() };
  // Session-level locks belong to one connection: take and release on the same one.
  return db.connection().execute(async (conn) => {
    const key = lockKey(name);
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

/**
 * Runs `work` while holding the lock `name`, waiting for it: "check, then create" steps of a
 * first start (the first signing key, the demo school) that several instances starting at once
 * on one PostgreSQL database would otherwise all carry out. `work` gets the connection holding
 * the lock and must use it for every query: with a pool of one, any other would never come.
 * SQLite has one server process per file (src/storage/sqlite/server-lock.ts): `work` just runs.
 */
export async function withExclusiveLock<T>(
  db: Kysely<Database>,
  name: string,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (dialectOf(db) !== 'postgres') return work(db);
  return db.connection().execute(async (conn) => {
    const key = lockKey(name);
    await sql`select pg_advisory_lock(${key})`.execute(conn);
    try {
      return await work(conn);
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn);
    }
  });
}
