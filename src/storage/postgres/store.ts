/** The store contract (../store.ts) on PostgreSQL. */
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { postgresDeviceAuthorizations } from './device-authorizations.js';
import { postgresInstances } from './instances.js';

export function postgresStore(db: Kysely<Database>, pool: pg.Pool): Store {
  return {
    deviceAuthorizations: postgresDeviceAuthorizations(db),
    instances: postgresInstances(db, pool),
  };
}
