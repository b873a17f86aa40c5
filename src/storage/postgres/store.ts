/** The store contract (../store.ts) on PostgreSQL. */
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { accountAdminSection } from '../account-admin-section.js';
import { clientAdminSection, connectedAppsSection } from '../client-admin-section.js';
import { upkeepSection } from '../expired-rows.repository.js';
import { addToWindows } from '../rate-limit-windows.repository.js';
import { revokeAccessInOneStatement, revokeOwnToken } from '../revocation.repository.js';
import type { Database } from '../schema.js';
import { schoolSection } from '../school-section.js';
import { serverSecretsSection } from '../server-secrets.repository.js';
import { sessionsSection } from '../sessions.repository.js';
import { auditSection, consentsSection, signingKeysSection, tokensSection } from '../shared-sections.js';
import { signinThrottleSection } from '../signin-throttle.repository.js';
import type { Store, TransactionScope } from '../store.js';
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
    clientAdmin: clientAdminSection(db),
    connectedApps: connectedAppsSection(db),
    consents: consentsSection(db),
    upkeep: upkeepSection(db),
    issuance: postgresIssuance(db),
    instances: postgresInstances(
      db,
      pool,
      (conn): TransactionScope => ({ store: postgresStore(conn, pool), db: conn }),
    ),
    rateLimitWindows: { shared: true, add: (increments) => addToWindows(db, increments) },
    revocation: { revokeOwn: (r) => revokeOwnToken(db, r, revokeAccessInOneStatement) },
    school: schoolSection(db),
    serverSecrets: serverSecretsSection(db),
    sessions: sessionsSection(db),
    signingKeys: signingKeysSection(db),
    signinThrottle: signinThrottleSection(db),
    tokens: tokensSection(db),
    // The store on the transaction's connection: every operation of `work` joins it.
    oneTransaction: (work) =>
      inTransaction(db, (trx) => work(transactionScope(postgresStore(trx, pool), trx))),
    dpopProofs: postgresDpopProofs(db),
    dpopNonces: postgresDpopNonces(db),
    deviceAuthorizations: postgresDeviceAuthorizations(db),
  };
}

const transactionScope = (store: Store, db: Kysely<Database>): TransactionScope => ({ store, db });
