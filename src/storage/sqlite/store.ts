/** The store contract (../store.ts) on SQLite. */
import type { Kysely } from 'kysely';
import { addToWindows } from '../rate-limit-windows.repository.js';
import { revokeAccessThenAudit, revokeOwnToken } from '../revocation.repository.js';
import type { Database } from '../schema.js';
import { auditSection, consentsSection, signingKeysSection, tokensSection } from '../shared-sections.js';
import type { Store } from '../store.js';
import { sqliteAccounts } from './account-answers.js';
import { sqliteBearerTokens } from './bearer-tokens.js';
import { sqliteClients } from './clients.js';
import { sqliteDeviceAuthorizations } from './device-authorizations.js';
import { sqliteDpopNonces, sqliteDpopProofs } from './dpop.js';
import { sqliteInstances } from './instances.js';
import { sqliteIssuance } from './issuance.js';

export function sqliteStore(db: Kysely<Database>): Store {
  const store: Store = {
    accounts: sqliteAccounts(db),
    audit: auditSection(db),
    bearerTokens: sqliteBearerTokens(db),
    clients: sqliteClients(db),
    consents: consentsSection(db),
    issuance: sqliteIssuance(db),
    instances: sqliteInstances(() => ({ store, db })),
    rateLimitWindows: { shared: false, add: (increments) => addToWindows(db, increments) },
    revocation: { revokeOwn: (r) => revokeOwnToken(db, r, revokeAccessThenAudit) },
    signingKeys: signingKeysSection(db),
    tokens: tokensSection(db),
    // Each operation is its own transaction; the driver shares one commit among a turn's
    // transactions (sqlite/driver.ts), so one around the request would buy nothing.
    oneTransaction: (work) => work({ store, db }),
    dpopProofs: sqliteDpopProofs(db),
    dpopNonces: sqliteDpopNonces(db),
    deviceAuthorizations: sqliteDeviceAuthorizations(db),
  };
  return store;
}
