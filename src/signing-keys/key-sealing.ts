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
import { type AuditInput, auditRow, auditWritten } from '../audit/audit.js';
import { isSealed, sealPrivateKey } from '../crypto/key-encryption.js';
import type { Store } from '../storage/store.js';

/** A key this start sealed: never its private half. */
export interface SealedKey {
  readonly kid: string;
  readonly alg: string;
}

/** Seals every key still stored in clear; answers those this call sealed. */
export async function sealClearKeys(
  store: Pick<Store, 'signingKeys'>,
  secret: string,
  now: () => number,
): Promise<SealedKey[]> {
  const clear = (await store.signingKeys.listAll()).filter((row) => !isSealed(row.private_jwk));
  const sealed: SealedKey[] = [];
  for (const row of clear) {
    const sealedJwk = sealPrivateKey(row.private_jwk, secret);
    const audit: AuditInput = { kind: 'key.sealed', detail: { kid: row.kid, alg: row.alg } };
    if (await store.signingKeys.sealIfClear(row.kid, row.private_jwk, sealedJwk, auditRow(audit, now()))) {
      auditWritten(audit.kind);
      sealed.push({ kid: row.kid, alg: row.alg });
    }
  }
  return sealed;
}
