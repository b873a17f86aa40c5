/** The store contract (../store.ts) on PostgreSQL. */
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { postgresDpopNonces, postgresDpopProofs } from './dpop.js';
import { postgresInstances } from './instances.js';

export function postgresStore(db: Kysely<Database>, pool: pg.Pool): Store {
  return {
    instances: postgresInstances(db, pool),
    dpopProofs: postgresDpopProofs(db),
    dpopNonces: postgresDpopNonces(db),
  };
}
