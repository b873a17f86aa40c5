/**
 * Instances on one PostgreSQL database: session-level advisory locks (a lock belongs to one
 * connection, so it is taken and released on the same one) and NOTIFY. The lock's key includes
 * the schema, so deployments sharing one database never block each other.
 */
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { Instances } from '../contract/instances.js';
import type { Database } from '../schema.js';
import type { Scope } from '../store.js';
import { KEYS_CHANNEL, KeyListener } from './key-listener.js';

const lockKey = (name: string) => sql`hashtext(${`schoolauth:${name}:`} || current_schema())`;

export function postgresInstances(
  db: Kysely<Database>,
  pool: pg.Pool,
  scopeOn: (conn: Kysely<Database>) => Scope,
): Instances<Scope> {
  return {
    tryAlone: (name, job) =>
      db.connection().execute(async (conn) => {
        const key = lockKey(name);
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_lock(${key}) as locked`.execute(conn);
        if (!rows[0]?.locked) return { ran: false } as const;
        try {
          return { ran: true, result: await job() } as const;
        } finally {
          await sql`select pg_advisory_unlock(${key})`.execute(conn);
        }
      }),
    alone: (name, work) =>
      db.connection().execute(async (conn) => {
        const key = lockKey(name);
        await sql`select pg_advisory_lock(${key})`.execute(conn);
        try {
          return await work(scopeOn(conn));
        } finally {
          await sql`select pg_advisory_unlock(${key})`.execute(conn);
        }
      }),
    async announceKeysChanged() {
      // Channels are database-wide; the payload names the schema so other deployments ignore it.
      await sql`select pg_notify(${KEYS_CHANNEL}, current_schema())`.execute(db);
    },
    watchKeys(onChange, log) {
      const listener = new KeyListener(pool, onChange, log);
      listener.start();
      return listener;
    },
  };
}
