/**
 * The DPoP sections (../contract/dpop.ts) on SQLite: the shared statements of ../dpop.repository.ts,
 * but the proof record, on every DPoP request, is run now on the server's connection when it is
 * free (driver.ts runImmediately: better-sqlite3 is synchronous, so no promise chain and no turn
 * of the event loop), with its SQL written once.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { DpopNonces, DpopProofs } from '../contract/dpop.js';
import { dpopNonces, dpopProofs } from '../dpop.repository.js';
import type { Database } from '../schema.js';
import { runImmediately } from './driver.js';

const RECORD_SQL = `insert into dpop_proofs (proof_key, expires_at) values (?, ?)
  on conflict (proof_key) do update set expires_at = excluded.expires_at
  where dpop_proofs.expires_at <= ?`;

export function sqliteDpopProofs(db: Kysely<Database>): DpopProofs {
  const shared = dpopProofs(db);
  return {
    async record(proofKey, expiresAt, now) {
      const query = CompiledQuery.raw(RECORD_SQL, [proofKey, expiresAt, now]);
      const result = await (runImmediately(db, query) ?? db.executeQuery(query));
      return Number(result.numAffectedRows ?? 0n) === 1;
    },
    prune: shared.prune,
  };
}

export function sqliteDpopNonces(db: Kysely<Database>): DpopNonces {
  return dpopNonces(db);
}
