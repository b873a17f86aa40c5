/**
 * The clients section (../contract/clients.ts) on PostgreSQL: each operation one statement where
 * it can be (every statement is a round trip; docs/performance.md "PostgreSQL").
 */
import type { Kysely } from 'kysely';
import { findClientWithAccessToken } from '../bearer-joined-reads.repository.js';
import { findClientWithCode, findClientWithRefreshToken } from '../client-joined-reads.repository.js';
import { listMetadataRules } from '../client-metadata-rules.repository.js';
import { findClient, saveMetadataClient } from '../clients.repository.js';
import type { Clients } from '../contract/clients.js';
import { insertClientWithAudit } from '../registration.repository.js';
import type { Database } from '../schema.js';

export function postgresClients(db: Kysely<Database>): Clients {
  return {
    // One data-modifying CTE: one round trip, and no BEGIN or COMMIT.
    register: (client, audit) => insertClientWithAudit(db, client, audit),
    find: (clientId) => findClient(db, clientId),
    findWithCode: (clientId, codeHash) => findClientWithCode(db, clientId, codeHash),
    findWithRefreshToken: (clientId, tokenHash) => findClientWithRefreshToken(db, clientId, tokenHash),
    async findWithAccessToken(clientId, tokenHash) {
      const found = await findClientWithAccessToken(db, clientId, tokenHash);
      return { client: found.client, row: found.token };
    },
    saveMetadataClient: (client) => saveMetadataClient(db, client),
    metadataRules: () => listMetadataRules(db),
  };
}
