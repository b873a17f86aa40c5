/** The store contract (../store.ts) on SQLite. */
import type { Kysely } from 'kysely';
import { addToWindows } from '../rate-limit-windows.repository.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { sqliteClients } from './clients.js';
import { sqliteInstances } from './instances.js';

export function sqliteStore(db: Kysely<Database>): Store {
  return {
    clients: sqliteClients(db),
    rateLimitWindows: { shared: false, add: (increments) => addToWindows(db, increments) },
    instances: sqliteInstances(db),
  };
}
