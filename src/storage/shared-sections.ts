/**
 * Sections of the store whose one implementation serves both backends: plain statements that
 * mean the same on SQLite and PostgreSQL. A backend's store.ts takes them as they are.
 */
import type { Kysely } from 'kysely';
import { insertAuditRow, listAuditEvents } from './audit.repository.js';
import type { Audit } from './contract/audit.js';
import type { SigningKeys } from './contract/signing-keys.js';
import type { Database } from './schema.js';
import {
  findPendingKey,
  insertKey,
  listAllKeys,
  listPublishedKeys,
  rotateSigningKey,
  sealKeyWithAudit,
} from './signing-keys.repository.js';

export function auditSection(db: Kysely<Database>): Audit {
  return {
    record: (row) => insertAuditRow(db, row),
    list: (filter) => listAuditEvents(db, filter),
  };
}

export function signingKeysSection(db: Kysely<Database>): SigningKeys {
  return {
    listPublished: (now) => listPublishedKeys(db, now),
    listAll: () => listAllKeys(db),
    insert: (row) => insertKey(db, row),
    findPending: (alg, now) => findPendingKey(db, alg, now),
    rotate: (rotation) => rotateSigningKey(db, rotation),
    sealIfClear: (kid, clear, sealed, audit) => sealKeyWithAudit(db, kid, clear, sealed, audit),
  };
}
