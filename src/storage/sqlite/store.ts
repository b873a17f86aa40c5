/** The store contract (../store.ts) on SQLite: each operation one synchronous transaction (connection.ts). */

import { accountAdminSection } from '../account-admin-section.js';
import { addToWindows } from '../rate-limit-windows.repository.js';
import { schoolSection } from '../school-section.js';
import { auditSection, consentsSection, signingKeysSection, tokensSection } from '../shared-sections.js';
import type { Store } from '../store.js';
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
  const store: Store = {
    accounts: { ...sqliteAccounts(connection), ...accountAdminSection(db) },
    audit: auditSection(db),
    bearerTokens: sqliteBearerTokens(connection),
    clients: sqliteClients(connection),
    consents: consentsSection(db),
    deviceAuthorizations: sqliteDeviceAuthorizations(db),
    dpopNonces: sqliteDpopNonces(connection),
    dpopProofs: sqliteDpopProofs(connection),
    instances: sqliteInstances(() => ({ store, db })),
    issuance: sqliteIssuance(connection),
    rateLimitWindows: { shared: false, add: (increments) => addToWindows(db, increments) },
    revocation: sqliteRevocation(connection),
    school: schoolSection(db),
    signingKeys: signingKeysSection(db),
    tokens: tokensSection(db),
    // Each operation is a transaction of its own, which runs whole before any other: one around
    // the request would buy nothing and hold the connection across its awaits.
    oneTransaction: (work) => work({ store, db }),
  };
  return store;
}
