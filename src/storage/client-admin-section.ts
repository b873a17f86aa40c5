/** The client admin and connected-apps sections of the store: the same statements on both databases. */
import type { Kysely, Transaction } from 'kysely';
import { listClients, liveGrantIdsOfClient, setClientDisabled } from './client-admin.repository.js';
import { clearMetadataRule, setMetadataRule } from './client-metadata-rules.repository.js';
import { insertClient } from './clients.repository.js';
import { connectionsOf, forgetApp } from './connected-apps.repository.js';
import type { ClientAdmin } from './contract/client-admin.js';
import type { ConnectedApps } from './contract/connected-apps.js';
import { revokeGrantsWithin } from './grants.repository.js';
import type { Database } from './schema.js';
import { inTransaction } from './transaction.js';

export function clientAdminSection(db: Kysely<Database>): ClientAdmin {
  // The grants first, then the client row (`then`): every write to a grant's rows takes the
  // grant's lock first (docs/security.md "Lock order").
  const revokeLive = (
    clientId: string,
    now: number,
    then?: (trx: Transaction<Database>) => Promise<unknown>,
  ) =>
    inTransaction(db, async (trx) => {
      const grantIds = await liveGrantIdsOfClient(trx, clientId);
      if (grantIds.length > 0) await revokeGrantsWithin(trx, grantIds, now);
      await then?.(trx);
      return grantIds.length;
    });
  return {
    insert: (client) => insertClient(db, client),
    list: (kind) => listClients(db, kind),
    disable: (clientId, now) => revokeLive(clientId, now, (trx) => setClientDisabled(trx, clientId, 1)),
    enable: (clientId) => setClientDisabled(db, clientId, 0),
    revokeGrants: (clientId, now) => revokeLive(clientId, now),
    setMetadataRule: (rule, now) => setMetadataRule(db, rule, now),
    clearMetadataRule: (kind, target) => clearMetadataRule(db, kind, target),
  };
}

export function connectedAppsSection(db: Kysely<Database>): ConnectedApps {
  return {
    of: (accountId) => connectionsOf(db, accountId),
    forget: (accountId, clientId, now) => forgetApp(db, accountId, clientId, now),
  };
}
