/**
 * Token revocation (../contract/revocation.ts) on SQLite: one synchronous transaction
 * (connection.ts) that finds the client's token, revokes it (a refresh token: its whole grant)
 * and writes the audit row. The hint orders the search (RFC 7009 §2.1).
 */
import { insertAuditRowNow } from '../audit.repository.js';
import type { Revocation, Revoked } from '../contract/revocation.js';
import { refreshByHash } from '../refresh-tokens.repository.js';
import { revocationAudit } from '../revocation.repository.js';
import { revokeAccess } from '../tokens.repository.js';
import type { SqliteConnection } from './connection.js';
import { revokeGrantNow } from './grant-revocation.js';

export function sqliteRevocation(connection: SqliteConnection): Revocation {
  return {
    revokeOwn: (r) =>
      connection.later((sql) => {
        const tryRefresh = (): Revoked | undefined => {
          const row = refreshByHash.firstNow(sql, r.tokenHash);
          if (!row || row.client_id !== r.clientId) return undefined;
          revokeGrantNow(sql, row.grant_id, r.now);
          insertAuditRowNow(sql, revocationAudit(r, 'refresh', row.grant_id, row.account_id));
          return { kind: 'refresh', grantId: row.grant_id, accountId: row.account_id };
        };
        const tryAccess = (): Revoked | undefined => {
          const row = revokeAccess.firstNow(sql, r.tokenHash, r.clientId, r.now);
          if (!row) return undefined;
          insertAuditRowNow(sql, revocationAudit(r, 'access', row.grant_id, row.account_id));
          return { kind: 'access', grantId: row.grant_id, accountId: row.account_id };
        };
        const order = r.hint === 'refresh_token' ? [tryRefresh, tryAccess] : [tryAccess, tryRefresh];
        for (const attempt of order) {
          const revoked = attempt();
          if (revoked) return revoked;
        }
        return undefined;
      }),
  };
}
