/** The clients section (../contract/clients.ts) on SQLite: each operation one transaction. */
import type { Kysely } from 'kysely';
import { insertAuditRow } from '../audit.repository.js';
import { insertClient } from '../clients.repository.js';
import type { Clients } from '../contract/clients.js';
import type { Database } from '../schema.js';
import { inTransaction } from '../transaction.js';

export function sqliteClients(db: Kysely<Database>): Clients {
  return {
    register: (client, audit) =>
      inTransaction(db, async (trx) => {
        await insertClient(trx, client);
        await insertAuditRow(trx, audit);
      }),
  };
}
