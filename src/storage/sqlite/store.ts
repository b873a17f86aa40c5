/** The store contract (../store.ts) on SQLite. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { sqliteDeviceAuthorizations } from './device-authorizations.js';
import { sqliteInstances } from './instances.js';

export function sqliteStore(db: Kysely<Database>): Store {
  return {
    deviceAuthorizations: sqliteDeviceAuthorizations(db),
    instances: sqliteInstances(db),
  };
}
