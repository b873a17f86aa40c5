/**
 * One server process per SQLite file (docs/deploy.md "SQLite"): the server's rate-limit counts in
 * memory and its one connection's mutex assume no other server writes the file. The lock is SQLite's own
 * exclusive lock on a companion file, `<database>.lock`, held in a transaction that stays open
 * for the life of the process: the kernel drops it when the process ends, however it ends
 * (SIGKILL, power loss), so there is no stale lock to clean up. The database itself is not
 * locked, so the CLI keeps working alongside the server.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createDatabaseFile } from '../private-files.js';
import SQLite from './binding.js';

export interface ServerLock {
  release(): void;
}

/** A second server on a database file another server process holds. */
export class DatabaseInUseError extends Error {
  constructor(
    readonly file: string,
    /** The server's process, when /proc/locks tells it. */
    readonly pid: number | undefined,
  ) {
    super(
      `another schoolauth server${pid === undefined ? '' : ` (pid ${pid})`} is already serving the SQLite database ${file}: only one server process may use a SQLite file. Stop that server first, or set DATABASE_URL to another file (use PostgreSQL to run several instances); the schoolauth CLI may run alongside it.`,
    );
    this.name = 'DatabaseInUseError';
  }
}

/**
 * The process holding a POSIX lock on `path`, from /proc/locks (Linux); undefined elsewhere or
 * when it cannot be told. SQLite's locks are fcntl() locks, listed with their owner's pid.
 */
function lockHolder(path: string): number | undefined {
  try {
    const inode = statSync(path).ino;
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      const match = /^\d+:\s+POSIX\s+\S+\s+\S+\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
      if (match && Number(match[2]) === inode && Number(match[1]) !== process.pid) return Number(match[1]);
    }
  } catch {
    // not Linux, or no /proc: the message goes without the pid
  }
  return undefined;
}

/** Takes the server lock of the SQLite database `file`; throws DatabaseInUseError when another server holds it. */
export function holdServerLock(file: string): ServerLock {
  const path = `${resolve(file)}.lock`;
  createDatabaseFile(path, undefined);
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting for it.
  const lock = new SQLite(path, { timeout: 0 });
  try {
    // The rollback journal in memory: holding the lock writes no -journal file beside it.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DatabaseInUseError(resolve(file), lockHolder(path));
    }
    throw error;
  }
  return {
    release() {
      if (lock.open) lock.close();
    },
  };
}
