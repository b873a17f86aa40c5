/**
 * The store contract's suites (test/store/): one migrated database per dialect, SQLite in memory
 * and a PostgreSQL schema of its own, dropped at close. A contract suite runs the same tests on
 * each dialect of DIALECTS, and `second()` opens another Storage on the same database (another
 * instance, on PostgreSQL) for what must hold across instances.
 */
import type { Storage } from '../../src/storage/connect.js';
import { type DialectName, openStorage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { Store } from '../../src/storage/store.js';
import { DIALECTS, dropSchema, newSchemaName, PG_URL } from './app.js';

export { DIALECTS };

export interface TestStore {
  readonly dialect: DialectName;
  readonly store: Store;
  readonly storage: Storage;
  /** Another instance's storage on the same database (PostgreSQL); the same one on SQLite in memory. */
  second(): Promise<Storage>;
  close(): Promise<void>;
}

export async function openTestStore(dialect: DialectName): Promise<TestStore> {
  const schema = dialect === 'postgres' ? newSchemaName() : undefined;
  const url = dialect === 'postgres' ? `${PG_URL}` : 'sqlite::memory:';
  const storage = await openStorage(url, schema ? { schema, poolSize: 5 } : {});
  await migrateToLatest(storage.db, storage.schema);
  const others: Storage[] = [];
  return {
    dialect,
    store: storage.store,
    storage,
    async second() {
      if (!schema) return storage;
      const other = await openStorage(url, { schema, poolSize: 5 });
      others.push(other);
      return other;
    },
    async close() {
      for (const other of others) await other.close();
      await storage.close();
      if (schema) await dropSchema(schema);
    },
  };
}
