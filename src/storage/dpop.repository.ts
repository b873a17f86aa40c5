/**
 * The DPoP sections of the store (contract/dpop.ts) as Kysely statements both backends run the
 * same: the proof record is one INSERT … ON CONFLICT, whose primary key decides which of
 * concurrent requests (on any instance) records a proof first; an expired record is taken over
 * in the same statement, so a stale row left for the prune refuses nothing.
 */
import { type Kysely, sql } from 'kysely';
import type { DpopNonces, DpopProofs } from './contract/dpop.js';
import type { Database } from './schema.js';

/**
 * One statement, written as SQL both dialects read alike: the builder's compile per call cost
 * twice the statement itself on SQLite, on a path every DPoP request takes.
 */
const recordProof = (db: Kysely<Database>, proofKey: string, expiresAt: number, now: number) =>
  sql`insert into dpop_proofs (proof_key, expires_at) values (${proofKey}, ${expiresAt})
    on conflict (proof_key) do update set expires_at = excluded.expires_at
    where dpop_proofs.expires_at <= ${now}`.execute(db);

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
      return Number(result.numAffectedRows ?? 0n) === 1;
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
