/** The store contract (../store.ts) on PostgreSQL. */
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { addToWindows } from '../rate-limit-windows.repository.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { postgresClients } from './clients.js';
import { postgresInstances } from './instances.js';

export function postgresStore(db: Kysely<Database>, pool: pg.Pool): Store {
  return {
    clients: postgresClients(db),
    rateLimitWindows: { shared: true, add: (increments) => addToWindows(db, increments) },
    instances: postgresInstances(db, pool),
  };
}
