/** The store contract (../store.ts) on PostgreSQL. */
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { accountAdminSection } from '../account-admin-section.js';
import { addToWindows } from '../rate-limit-windows.repository.js';
import { revokeAccessInOneStatement, revokeOwnToken } from '../revocation.repository.js';
import type { Database } from '../schema.js';
import { schoolSection } from '../school-section.js';
import { auditSection, consentsSection, signingKeysSection, tokensSection } from '../shared-sections.js';
import type { Store } from '../store.js';
import { inTransaction } from '../transaction.js';
import { postgresAccounts } from './accounts.js';
import { postgresBearerTokens } from './bearer-tokens.js';
import { postgresClients } from './clients.js';
import { postgresDeviceAuthorizations } from './device-authorizations.js';
import { postgresDpopNonces, postgresDpopProofs } from './dpop.js';
import { postgresInstances } from './instances.js';
import { postgresIssuance } from './issuance.js';

export function postgresStore(db: Kysely<Database>, pool: pg.Pool): Store {
  return {
    accounts: { ...postgresAccounts(db), ...accountAdminSection(db) },
    audit: auditSection(db),
    bearerTokens: postgresBearerTokens(db),
    clients: postgresClients(db),
    consents: consentsSection(db),
    issuance: postgresIssuance(db),
    instances: postgresInstances(db, pool, (conn) => ({ store: postgresStore(conn, pool), db: conn })),
    rateLimitWindows: { shared: true, add: (increments) => addToWindows(db, increments) },
    revocation: { revokeOwn: (r) => revokeOwnToken(db, r, revokeAccessInOneStatement) },
    school: schoolSection(db),
    signingKeys: signingKeysSection(db),
    tokens: tokensSection(db),
    // The store on the transaction's connection: every operation of `work` joins it.
    oneTransaction: (work) => inTransaction(db, (trx) => work({ store: postgresStore(trx, pool), db: trx })),
    dpopProofs: postgresDpopProofs(db),
    dpopNonces: postgresDpopNonces(db),
    deviceAuthorizations: postgresDeviceAuthorizations(db),
  };
}
