/**
 * The clients section (../contract/clients.ts) on SQLite: each operation one synchronous
 * transaction (connection.ts); a client and the row presented with it are two indexed lookups
 * (a join would only cost).
 */
import { insertAuditRowNow } from '../audit.repository.js';
import { bearerWithAccount } from '../bearer-tokens.repository.js';
import { listMetadataRules } from '../client-metadata-rules.repository.js';
import { clientById, insertClient, saveMetadataClient } from '../clients.repository.js';
import { codeByHash } from '../codes.repository.js';
import type { Clients, ClientWith } from '../contract/clients.js';
import { refreshByHash } from '../refresh-tokens.repository.js';
import type { Client } from '../schema.js';
import type { SqliteConnection, SyncSql } from './connection.js';

/** As findClient: an id with a NUL character cannot exist. */
const clientNow = (sql: SyncSql, clientId: string): Client | undefined =>
  clientId.includes('\u0000') ? undefined : clientById.firstNow(sql, clientId);

export function sqliteClients(connection: SqliteConnection): Clients {
  const clientWith = <T>(clientId: string, read: (sql: SyncSql) => T | undefined) =>
    connection.readLater((sql): ClientWith<T> => {
      const client = clientNow(sql, clientId);
      return { client, row: client && read(sql) };
    });
  return {
    register: (client, audit) =>
      connection.later((sql) => {
        insertClient.now(sql, client);
        insertAuditRowNow(sql, audit);
      }),
    find: (clientId) => connection.readLater((sql) => clientNow(sql, clientId)),
    findWithCode: (clientId, codeHash) => clientWith(clientId, (sql) => codeByHash.firstNow(sql, codeHash)),
    findWithRefreshToken: (clientId, tokenHash) =>
      clientWith(clientId, (sql) => refreshByHash.firstNow(sql, tokenHash)),
    findWithAccessToken: (clientId, tokenHash) =>
      clientWith(clientId, (sql) => bearerWithAccount.firstNow(sql, tokenHash)),
    saveMetadataClient: (client) => saveMetadataClient(connection.db, client),
    metadataRules: () => listMetadataRules(connection.db),
  };
}
