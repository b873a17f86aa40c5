/** The store contract (../store.ts) on SQLite. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { sqliteDpopNonces, sqliteDpopProofs } from './dpop.js';
import { sqliteInstances } from './instances.js';

export function sqliteStore(db: Kysely<Database>): Store {
  return {
    instances: sqliteInstances(db),
    dpopProofs: sqliteDpopProofs(db),
    dpopNonces: sqliteDpopNonces(db),
  };
}
