/**
 * Files at rest are for the service's own user only. The SQLite database holds the private
 * signing key (unencrypted without KEY_ENCRYPTION_SECRET), password hashes and personal data, so
 * DATA_DIR is created 0700 and the database 0600. SQLite gives the -wal and -shm files it creates
 * later the database file's own mode (os_unix.c findCreateFileMode, unixOpenSharedMemory), so a
 * database created 0600 keeps all three private. Only DATA_DIR is ever created as a directory: a
 * database path whose directory is missing is a typo, refused with the variable named.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../config.js';

/** Mode of every directory the service creates. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of every file the service creates. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the SQLite database file 0600 when it does not exist; an existing one is left as it is.
 * The directory is created (0700, with missing parents) only when it is DATA_DIR; any other
 * missing directory is a ConfigError naming DATABASE_URL.
 */
export function createDatabaseFile(file: string, dataDir: string | undefined): void {
  const dir = dirname(resolve(file));
  if (dataDir !== undefined && dir === resolve(dataDir)) {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  }
  try {
    // 'wx' (O_CREAT | O_EXCL): never opens, so never changes, a file that exists.
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code === 'ENOENT') {
      throw new ConfigError([
        `DATABASE_URL=${JSON.stringify(`sqlite:${file}`)}: the directory ${dir} does not exist; create it, or correct the path (schoolauth creates only the database file, and DATA_DIR)`,
      ]);
    }
    throw new Error(
      `cannot create the SQLite database ${resolve(file)} (DATABASE_URL): ${(error as Error).message}`,
    );
  }
}
