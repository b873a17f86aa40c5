/**
 * The DPoP sections (../contract/dpop.ts) on SQLite: the shared statements of ../dpop.repository.ts,
 * but the proof record, on every DPoP request, is one synchronous operation (connection.ts): no
 * promise chain and no turn of the event loop when the connection is free.
 */
import { CompiledQuery } from 'kysely';
import type { DpopNonces, DpopProofs } from '../contract/dpop.js';
import { dpopNonces, dpopProofs } from '../dpop.repository.js';
import type { SqliteConnection } from './connection.js';

const RECORD_SQL = `insert into dpop_proofs (proof_key, expires_at) values (?, ?)
  on conflict (proof_key) do update set expires_at = excluded.expires_at
  where dpop_proofs.expires_at <= ?`;

export function sqliteDpopProofs(connection: SqliteConnection): DpopProofs {
  const shared = dpopProofs(connection.db);
  return {
    record: (proofKey, expiresAt, now) =>
      connection.later(
        (sql) =>
          Number(
            sql.execute(CompiledQuery.raw(RECORD_SQL, [proofKey, expiresAt, now])).numAffectedRows ?? 0n,
          ) === 1,
      ),
    prune: shared.prune,
  };
}

export function sqliteDpopNonces(connection: SqliteConnection): DpopNonces {
  return dpopNonces(connection.db);
}
