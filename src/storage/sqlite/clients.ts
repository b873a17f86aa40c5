/**
 * The clients section (../contract/clients.ts) on SQLite: each write one transaction; a client
 * and the row presented with it are two reads, each a synchronous indexed lookup (a join would
 * only cost).
 */
import type { Kysely } from 'kysely';
import { insertAuditRow } from '../audit.repository.js';
import { findBearerToken } from '../bearer-tokens.repository.js';
import { listMetadataRules } from '../client-metadata-rules.repository.js';
import { findClient, insertClient, saveMetadataClient } from '../clients.repository.js';
import { findCode } from '../codes.repository.js';
import type { Clients, ClientWith } from '../contract/clients.js';
import { findRefreshToken } from '../refresh-tokens.repository.js';
import type { Database } from '../schema.js';
import { inTransaction } from '../transaction.js';

async function clientWith<T>(
  db: Kysely<Database>,
  clientId: string,
  read: () => Promise<T | undefined>,
): Promise<ClientWith<T>> {
  const client = await findClient(db, clientId);
  return { client, row: client && (await read()) };
}

export function sqliteClients(db: Kysely<Database>): Clients {
  return {
    register: (client, audit) =>
      inTransaction(db, async (trx) => {
        await insertClient(trx, client);
        await insertAuditRow(trx, audit);
      }),
    find: (clientId) => findClient(db, clientId),
    findWithCode: (clientId, codeHash) => clientWith(db, clientId, () => findCode(db, codeHash)),
    findWithRefreshToken: (clientId, tokenHash) =>
      clientWith(db, clientId, () => findRefreshToken(db, tokenHash)),
    findWithAccessToken: (clientId, tokenHash) =>
      clientWith(db, clientId, () => findBearerToken(db, tokenHash)),
    saveMetadataClient: (client) => saveMetadataClient(db, client),
    metadataRules: () => listMetadataRules(db),
  };
}
