import type { Kysely } from 'kysely';
import { insertAuditRow } from './audit.repository.js';
import type { KeyRotation } from './contract/signing-keys.js';
import type { AuditEventRow, Database, SigningKeyRow } from './schema.js';
import { inTransaction } from './transaction.js';

/** Keys still published: not retired, or retired but within their retire window. */
export function listPublishedKeys(db: Kysely<Database>, now: number): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .where((eb) => eb.or([eb('retire_until', 'is', null), eb('retire_until', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
}

export function listAllKeys(db: Kysely<Database>): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
}

export async function insertKey(db: Kysely<Database>, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}

/**
 * Schedules the end of every key of `alg` signing now (`activates_at` passed, no end set): it
 * signs until `retiredAt` and stays published until `retireUntil`. Answers how many keys it changed.
 */
export async function retireCurrentKeys(
  db: Kysely<Database>,
  alg: string,
  now: number,
  retiredAt: number,
  retireUntil: number,
): Promise<number> {
  const result = await db
    .updateTable('signing_keys')
    .set({ retired_at: retiredAt, retire_until: retireUntil })
    .where('alg', '=', alg)
    .where('retired_at', 'is', null)
    .where('activates_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A key of `alg` published but not signing yet (`next`), if any. */
export function findPendingKey(
  db: Kysely<Database>,
  alg: string,
  now: number,
): Promise<SigningKeyRow | undefined> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .where('alg', '=', alg)
    .where('activates_at', '>', now)
    .orderBy('activates_at')
    .executeTakeFirst();
}

/**
 * Replaces a key's private half stored in clear by its sealed form, only if the row still holds
 * exactly that clear value: of several instances sealing at once, one write lands and the others
 * change nothing. Answers whether this call sealed it.
 */
export async function sealKeyIfClear(
  db: Kysely<Database>,
  kid: string,
  clear: string,
  sealed: string,
): Promise<boolean> {
  const result = await db
    .updateTable('signing_keys')
    .set({ private_jwk: sealed })
    .where('kid', '=', kid)
    .where('private_jwk', '=', clear)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** contract/signing-keys.ts `rotate`. */
export function rotateSigningKey(db: Kysely<Database>, r: KeyRotation): Promise<{ pending?: SigningKeyRow }> {
  return inTransaction(db, async (trx) => {
    // The conditional update runs first: it takes the write lock (SQLite) or the current key's row
    // lock (PostgreSQL), so of two rotations at once the second finds nothing current to retire.
    const retired = await retireCurrentKeys(trx, r.alg, r.now, r.key.activates_at, r.previousUntil);
    if (retired === 0) {
      const pending = await findPendingKey(trx, r.alg, r.now);
      if (pending) return { pending };
    }
    await insertKey(trx, r.key);
    return {};
  });
}

/** contract/signing-keys.ts `sealIfClear`. */
export function sealKeyWithAudit(
  db: Kysely<Database>,
  kid: string,
  clear: string,
  sealed: string,
  audit: AuditEventRow,
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await sealKeyIfClear(trx, kid, clear, sealed))) return false;
    await insertAuditRow(trx, audit);
    return true;
  });
}
