/**
 * The DPoP sections of the store (contract/dpop.ts) as Kysely statements both backends run the
 * same: the proof record is one INSERT … ON CONFLICT, whose primary key decides which of
 * concurrent requests (on any instance) records a proof first; an expired record is taken over
 * in the same statement, so a stale row left for the prune refuses nothing.
 */
import type { Kysely } from 'kysely';
import type { DpopNonces, DpopProofs } from './contract/dpop.js';
import type { Database } from './schema.js';

const recordProof = (db: Kysely<Database>, proofKey: string, expiresAt: number, now: number) =>
  db
    .insertInto('dpop_proofs')
    .values({ proof_key: proofKey, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .column('proof_key')
        .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') })
        .where('dpop_proofs.expires_at', '<=', now),
    )
    .executeTakeFirst();

const addNonce = (db: Kysely<Database>, nonceHash: string, expiresAt: number) =>
  db
    .insertInto('dpop_nonces')
    .values({ nonce_hash: nonceHash, expires_at: expiresAt })
    .onConflict((oc) => oc.column('nonce_hash').doNothing())
    .execute();

const liveNonce = (db: Kysely<Database>, nonceHash: string, now: number) =>
  db
    .selectFrom('dpop_nonces')
    .select('expires_at')
    .where('nonce_hash', '=', nonceHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();

async function pruneExpired(
  db: Kysely<Database>,
  table: 'dpop_proofs' | 'dpop_nonces',
  key: 'proof_key' | 'nonce_hash',
  now: number,
  limit: number,
): Promise<number> {
  // A bounded batch (the prune's pace): the keys first, then the delete by key.
  const rows = await db
    .selectFrom(table)
    .select(`${key} as key` as 'proof_key')
    .where('expires_at', '<=', now)
    .limit(limit)
    .execute();
  if (rows.length === 0) return 0;
  const keys = rows.map((row) => (row as unknown as { key: string }).key);
  const result = await db
    .deleteFrom(table)
    .where(key as 'proof_key', 'in', keys)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function dpopProofs(db: Kysely<Database>): DpopProofs {
  return {
    async record(proofKey, expiresAt, now) {
      const result = await recordProof(db, proofKey, expiresAt, now);
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    prune: (now, limit) => pruneExpired(db, 'dpop_proofs', 'proof_key', now, limit),
  };
}

export function dpopNonces(db: Kysely<Database>): DpopNonces {
  return {
    async add(nonceHash, expiresAt) {
      await addNonce(db, nonceHash, expiresAt);
    },
    async liveUntil(nonceHash, now) {
      const row = await liveNonce(db, nonceHash, now);
      return row === undefined ? undefined : Number(row.expires_at);
    },
    prune: (now, limit) => pruneExpired(db, 'dpop_nonces', 'nonce_hash', now, limit),
  };
}
