/**
 * The database as a file, for the operator's commands (`schoolauth backup`, `restore`): a SQLite
 * database is one file with its WAL, copied online with SQLite's backup API and guarded by the
 * one-server-per-file lock. A PostgreSQL database has no file of ours (`databaseFileOf` answers
 * undefined): pg_dump and pg_restore copy it (docs/deploy.md "Backups").
 */
export {
  backupSqlite as backupDatabaseFile,
  holdsDatabase,
  restoreSqlite as restoreDatabaseFile,
  sqliteFileOf as databaseFileOf,
} from './sqlite/copy.js';
export { DatabaseInUseError, holdServerLock, type ServerLock } from './sqlite/server-lock.js';
