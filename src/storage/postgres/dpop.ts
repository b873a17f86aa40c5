/** The DPoP sections (../contract/dpop.ts) on PostgreSQL: the shared statements of ../dpop.repository.ts. */
import type { Kysely } from 'kysely';
import type { DpopNonces, DpopProofs } from '../contract/dpop.js';
import { dpopNonces, dpopProofs } from '../dpop.repository.js';
import type { Database } from '../schema.js';

export function postgresDpopProofs(db: Kysely<Database>): DpopProofs {
  return dpopProofs(db);
}

export function postgresDpopNonces(db: Kysely<Database>): DpopNonces {
  return dpopNonces(db);
}
