/** The DPoP sections (../contract/dpop.ts) on SQLite: the shared statements of ../dpop.repository.ts. */
import type { Kysely } from 'kysely';
import type { DpopNonces, DpopProofs } from '../contract/dpop.js';
import { dpopNonces, dpopProofs } from '../dpop.repository.js';
import type { Database } from '../schema.js';

export function sqliteDpopProofs(db: Kysely<Database>): DpopProofs {
  return dpopProofs(db);
}

export function sqliteDpopNonces(db: Kysely<Database>): DpopNonces {
  return dpopNonces(db);
}
