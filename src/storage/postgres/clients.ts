/** The clients section (../contract/clients.ts) on PostgreSQL: each operation one statement where it can be. */
import type { Kysely } from 'kysely';
import type { Clients } from '../contract/clients.js';
import { insertClientWithAudit } from '../registration.repository.js';
import type { Database } from '../schema.js';

export function postgresClients(db: Kysely<Database>): Clients {
  return {
    // One data-modifying CTE: one round trip, and no BEGIN or COMMIT.
    register: (client, audit) => insertClientWithAudit(db, client, audit),
  };
}
