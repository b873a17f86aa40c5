/**
 * Opens storage, brings the schema up to date and loads signing keys: what the server and the
 * CLI both need before doing anything.
 */
import type { Config } from './config.js';
import { type AppContext, systemClock } from './context.js';
import { KeyStore } from './crypto/keys.js';
import { openStorage } from './storage/connect.js';
import { migrateToLatest } from './storage/migrate.js';

export interface BootstrapOptions {
  /**
   * The server: SQLite WAL checkpoints on a worker thread (src/storage/wal-checkpoints.ts), and
   * requests' statements bound by DATABASE_TIMEOUT. A CLI command may wait as long as it needs.
   */
  readonly server?: boolean;
}

export async function bootstrap(
  config: Config,
  now: () => number = systemClock,
  options: BootstrapOptions = {},
): Promise<AppContext> {
  const storage = await openStorage(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    timeoutSeconds: config.databaseTimeout,
    checkpointInBackground: options.server ?? false,
  });
  try {
    await migrateToLatest(storage.maintenanceDb, storage.schema);
    const keys = new KeyStore(storage.db, {
      idTokenTtl: config.idTokenTtl,
      keyEncryptionSecret: config.keyEncryptionSecret,
      now,
    });
    await keys.reload();
    return { config, storage, db: options.server ? storage.db : storage.maintenanceDb, keys, now };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
