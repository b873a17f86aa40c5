/**
 * Opens storage, brings the schema up to date and loads signing keys: what the server and the
 * CLI both need before doing anything.
 */
import type { Config } from './config.js';
import { type AppContext, systemClock } from './context.js';
import { type SealedKey, sealClearKeys } from './signing-keys/key-sealing.js';
import { KeyStore } from './signing-keys/key-store.js';
import { openStorage } from './storage/connect.js';
import { prepareDatabase } from './storage/schema-mismatch.js';

export interface BootstrapOptions {
  /**
   * The server: the SQLite one-server-per-file lock (src/storage/sqlite/server-lock.ts), and requests' statements bound
   * by DATABASE_TIMEOUT. A CLI command may wait as long as it needs.
   */
  readonly server?: boolean;
  /**
   * The CLI (but `migrate` and `demo`): only a database that already has schoolauth's tables;
   * nothing is created (storage/existing-database.ts).
   */
  readonly existing?: boolean;
}

export interface Bootstrapped extends AppContext {
  /** The database had no schoolauth tables: this start created them (a new file, or an empty database). */
  readonly newDatabase: boolean;
  /** Keys stored in clear that this start sealed under KEY_ENCRYPTION_SECRET (key-sealing.ts). */
  readonly sealedKeys: readonly SealedKey[];
  /** PostgreSQL, a new `?schema=`: the other schemas of the database with schoolauth tables (a typo?). */
  readonly otherSchemas: readonly string[];
}

export async function bootstrap(
  config: Config,
  now: () => number = systemClock,
  options: BootstrapOptions = {},
): Promise<Bootstrapped> {
  const storage = await openStorage(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    namedStatements: config.databaseNamedStatements,
    timeoutSeconds: config.databaseTimeout,
    serverLock: options.server ?? false,
    dataDir: config.dataDir,
    existing: options.existing ?? false,
  });
  try {
    // Without ?schema=, tables of ours in other schemas only: a dropped ?schema=, not a new database.
    const { newDatabase, otherSchemas } = await prepareDatabase(storage, config.databaseUrl);
    const keys = new KeyStore(storage, {
      idTokenTtl: config.idTokenTtl,
      keyEncryptionSecret: config.keyEncryptionSecret,
      now,
    });
    // After the load: keys that sign, sealed under another secret (or started without one), are
    // refused by the load before any key stored in clear is sealed under this secret.
    await keys.reload();
    const sealedKeys = config.keyEncryptionSecret
      ? await sealClearKeys(storage.store, config.keyEncryptionSecret, now)
      : [];
    return {
      config,
      storage,
      store: options.server ? storage.store : storage.maintenanceStore,
      keys,
      now,
      newDatabase,
      sealedKeys,
      otherSchemas,
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
