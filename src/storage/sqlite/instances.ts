/**
 * One server process per SQLite file (server-lock.ts), and the CLI is its only other writer:
 * a job just runs, and the keys' change is seen by the server's periodic reload.
 */
import type { Kysely } from 'kysely';
import type { Instances } from '../contract/instances.js';
import type { Database } from '../schema.js';

export function sqliteInstances(db: Kysely<Database>): Instances {
  return {
    tryAlone: async (_name, job) => ({ ran: true, result: await job() }),
    alone: (_name, work) => work(db),
    announceKeysChanged: async () => undefined,
    watchKeys: () => ({ stop: async () => undefined }),
  };
}
