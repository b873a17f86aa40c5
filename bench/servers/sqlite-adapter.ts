/**
 * A SQLite storage adapter for node-oidc-provider, so the peer pays for durable storage as
 * schoolauth does: one table keyed by (model, id) with the payload as JSON text, indexes on
 * grantId, uid and userCode, and an expiry column. better-sqlite3 with the same pragmas as
 * schoolauth (WAL, synchronous=NORMAL) and prepared statements.
 */

import type { Adapter, AdapterPayload } from 'oidc-provider';
import Database from '../../src/storage/sqlite/binding.js';

type Row = { payload: string; expires_at: number | null; consumed_at: number | null };

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS oidc_models (
    model TEXT NOT NULL,
    id TEXT NOT NULL,
    payload TEXT NOT NULL,
    grant_id TEXT,
    uid TEXT,
    user_code TEXT,
    expires_at INTEGER,
    consumed_at INTEGER,
    PRIMARY KEY (model, id)
  );
  CREATE INDEX IF NOT EXISTS oidc_models_grant_id ON oidc_models (grant_id);
  CREATE INDEX IF NOT EXISTS oidc_models_uid ON oidc_models (model, uid);
  CREATE INDEX IF NOT EXISTS oidc_models_user_code ON oidc_models (model, user_code);
  CREATE INDEX IF NOT EXISTS oidc_models_expires_at ON oidc_models (expires_at);
  CREATE TABLE IF NOT EXISTS accounts (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
`;

function statements(db: Database.Database) {
  return {
    upsert: db.prepare(
      `INSERT INTO oidc_models (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
       VALUES (@model, @id, @payload, @grantId, @uid, @userCode, @expiresAt, NULL)
       ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
         uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
    ),
    find: db.prepare('SELECT payload, expires_at, consumed_at FROM oidc_models WHERE model = ? AND id = ?'),
    findByUid: db.prepare(
      'SELECT payload, expires_at, consumed_at FROM oidc_models WHERE model = ? AND uid = ? LIMIT 1',
    ),
    findByUserCode: db.prepare(
      'SELECT payload, expires_at, consumed_at FROM oidc_models WHERE model = ? AND user_code = ? LIMIT 1',
    ),
    consume: db.prepare('UPDATE oidc_models SET consumed_at = ? WHERE model = ? AND id = ?'),
    destroy: db.prepare('DELETE FROM oidc_models WHERE model = ? AND id = ?'),
    revokeByGrantId: db.prepare('DELETE FROM oidc_models WHERE grant_id = ?'),
  };
}

export interface SqliteStore {
  readonly db: Database.Database;
  adapterFor(model: string): Adapter;
}

const epoch = () => Math.floor(Date.now() / 1000);

function toPayload(row: Row | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  if (row.expires_at !== null && row.expires_at <= epoch()) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
}

export function openSqliteStore(path: string): SqliteStore {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const sql = statements(db);
  const adapterFor = (model: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      sql.upsert.run({
        model,
        id,
        payload: JSON.stringify(payload),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt: expiresIn ? epoch() + expiresIn : null,
      });
    },
    async find(id) {
      return toPayload(sql.find.get(model, id) as Row | undefined);
    },
    async findByUid(uid) {
      return toPayload(sql.findByUid.get(model, uid) as Row | undefined);
    },
    async findByUserCode(userCode) {
      return toPayload(sql.findByUserCode.get(model, userCode) as Row | undefined);
    },
    async consume(id) {
      sql.consume.run(epoch(), model, id);
    },
    async destroy(id) {
      sql.destroy.run(model, id);
    },
    async revokeByGrantId(grantId) {
      sql.revokeByGrantId.run(grantId);
    },
  });
  return { db, adapterFor };
}
