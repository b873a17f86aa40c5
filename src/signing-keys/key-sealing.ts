/**
 * Signing keys stored in clear (created while KEY_ENCRYPTION_SECRET was unset) sealed once the
 * secret is set: at every start with the secret (server and CLI), before anything is served, so
 * setting the secret on an existing database protects the keys already there, not only the next
 * ones. Every key is sealed, retired ones too: a retired key's private half, once read, still signs
 * tokens that a verifier with an old cached JWKS accepts.
 *
 * Several instances starting at once on one PostgreSQL each try every clear key; the conditional
 * update (signing-keys.repository.ts, `sealKeyIfClear`) lets exactly one write land per key, and
 * only that instance records the audit event. The private key itself does not change, so a
 * running instance that already opened it goes on signing with it.
 */
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/audit.js';
import { isSealed, sealPrivateKey } from '../crypto/key-encryption.js';
import type { Database } from '../storage/schema.js';
import { listAllKeys, sealKeyIfClear } from '../storage/signing-keys.repository.js';
import { inTransaction } from '../storage/transaction.js';

/** A key this start sealed: never its private half. */
export interface SealedKey {
  readonly kid: string;
  readonly alg: string;
}

/** Seals every key still stored in clear; answers those this call sealed. */
export async function sealClearKeys(
  db: Kysely<Database>,
  secret: string,
  now: () => number,
): Promise<SealedKey[]> {
  const clear = (await listAllKeys(db)).filter((row) => !isSealed(row.private_jwk));
  const sealed: SealedKey[] = [];
  for (const row of clear) {
    const sealedJwk = sealPrivateKey(row.private_jwk, secret);
    const won = await inTransaction(db, async (trx) => {
      if (!(await sealKeyIfClear(trx, row.kid, row.private_jwk, sealedJwk))) return false;
      await recordAudit(trx, { kind: 'key.sealed', detail: { kid: row.kid, alg: row.alg } }, now());
      return true;
    });
    if (won) sealed.push({ kid: row.kid, alg: row.alg });
  }
  return sealed;
}
