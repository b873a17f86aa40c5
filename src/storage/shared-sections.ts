/**
 * Sections of the store whose one implementation serves both backends: plain statements that
 * mean the same on SQLite and PostgreSQL. A backend's store.ts takes them as they are.
 */
import type { Kysely } from 'kysely';
import { insertAuditRow, listAuditEvents } from './audit.repository.js';
import { findCode } from './codes.repository.js';
import { findConsent, saveConsent } from './consents.repository.js';
import type { Audit } from './contract/audit.js';
import type { SigningKeys } from './contract/signing-keys.js';
import type { Consents, Tokens } from './contract/tokens.js';
import { insertGrantWithCode } from './grants.repository.js';
import { findRefreshToken } from './refresh-tokens.repository.js';
import type { Database } from './schema.js';
import {
  findPendingKey,
  insertKey,
  listAllKeys,
  listPublishedKeys,
  rotateSigningKey,
  sealKeyWithAudit,
} from './signing-keys.repository.js';
import { findAccessTokenByHash, grantAuthTime } from './tokens.repository.js';

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

export function tokensSection(db: Kysely<Database>): Tokens {
  return {
    findCode: (codeHash) => findCode(db, codeHash),
    issueCode: (grant, code) => insertGrantWithCode(db, grant, code),
    findRefresh: (tokenHash) => findRefreshToken(db, tokenHash),
    findAccess: (tokenHash) => findAccessTokenByHash(db, tokenHash),
    grantAuthTime: (grantId) => grantAuthTime(db, grantId),
  };
}

export function consentsSection(db: Kysely<Database>): Consents {
  return {
    find: (accountId, clientId) => findConsent(db, accountId, clientId),
    save: (accountId, clientId, scopes, now) => saveConsent(db, accountId, clientId, scopes, now),
  };
}
