/** The store contract (../store.ts) on SQLite: each operation one synchronous transaction (connection.ts). */

import { accountAdminSection } from '../account-admin-section.js';
import { clientAdminSection, connectedAppsSection } from '../client-admin-section.js';
import { upkeepSection } from '../expired-rows.repository.js';
import { addToWindows } from '../rate-limit-windows.repository.js';
import { schoolSection } from '../school-section.js';
import { serverSecretsSection } from '../server-secrets.repository.js';
import { sessionsSection } from '../sessions.repository.js';
import { auditSection, consentsSection, signingKeysSection, tokensSection } from '../shared-sections.js';
import { signinThrottleSection } from '../signin-throttle.repository.js';
import type { Store, TransactionScope } from '../store.js';
import { sqliteAccounts } from './accounts.js';
import { sqliteBearerTokens } from './bearer-tokens.js';
import { sqliteClients } from './clients.js';
import type { SqliteConnection } from './connection.js';
import { sqliteDeviceAuthorizations } from './device-authorizations.js';
import { sqliteDpopNonces, sqliteDpopProofs } from './dpop.js';
import { sqliteInstances } from './instances.js';
import { sqliteIssuance } from './issuance.js';
import { sqliteRevocation } from './revocation.js';

export function sqliteStore(connection: SqliteConnection): Store {
  const db = connection.db;
  const scope = (): TransactionScope => ({ store, db });
  const store: Store = {
    accounts: { ...sqliteAccounts(connection), ...accountAdminSection(db) },
    audit: auditSection(db),
    bearerTokens: sqliteBearerTokens(connection),
    clients: sqliteClients(connection),
    clientAdmin: clientAdminSection(db),
    connectedApps: connectedAppsSection(db),
    consents: consentsSection(db),
    deviceAuthorizations: sqliteDeviceAuthorizations(db),
    dpopNonces: sqliteDpopNonces(connection),
    dpopProofs: sqliteDpopProofs(connection),
    instances: sqliteInstances(scope),
    upkeep: upkeepSection(db),
    issuance: sqliteIssuance(connection),
    rateLimitWindows: { shared: false, add: (increments) => addToWindows(db, increments) },
    revocation: sqliteRevocation(connection),
    school: schoolSection(db),
    serverSecrets: serverSecretsSection(db),
    sessions: sessionsSection(db),
    signingKeys: signingKeysSection(db),
    signinThrottle: signinThrottleSection(db),
    tokens: tokensSection(db),
    // Each operation is a transaction of its own, which runs whole before any other: one around
    // the request would buy nothing and hold the connection across its awaits.
    oneTransaction: (work) => work(scope()),
  };
  return store;
}
