/**
 * Online backup and restore of the SQLite database with SQLite's backup API (never a file copy:
 * the WAL holds recent commits, and a file copied while a server writes is torn). A backup reads
 * one snapshot — every transaction committed before it began, none of a half — while the server
 * keeps writing; a restore writes the backup into the database through SQLite, so a stale WAL
 * beside it can never be replayed onto the restored pages.
 */
import { chmodSync, closeSync, existsSync, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SQLite from './binding.js';

/** The file of a `sqlite:<path>` DATABASE_URL, resolved; undefined for anything else. */
export function sqliteFileOf(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const path = databaseUrl.slice('sqlite:'.length);
  return path === ':memory:' ? undefined : resolve(path);
}

/** The backup API copies this many pages per step: all of them, so the copy is one snapshot. */
const ALL_PAGES = 0x7fffffff;

export interface CopyResult {
  readonly pages: number;
}

function openDatabase(path: string, timeoutMs: number, readonly = false): SQLite.Database {
  const database = new SQLite(path, { fileMustExist: true, readonly });
  database.pragma(`busy_timeout = ${timeoutMs}`);
  return database;
}

/** `PRAGMA integrity_check` and the presence of schoolauth's migration table; throws what is wrong. */
export function checkDatabase(path: string, timeoutMs: number): void {
  const database = openDatabase(path, timeoutMs, true);
  try {
    const verdict = database.pragma('integrity_check', { simple: true });
    if (verdict !== 'ok') throw new Error(`${path} fails PRAGMA integrity_check: ${String(verdict)}`);
    const migrations = database
      .prepare("select count(*) from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .pluck()
      .get();
    if (migrations !== 1) throw new Error(`${path} is an SQLite database, but not one of schoolauth`);
  } finally {
    database.close();
  }
}

/** Whether a schoolauth database (any table at all) is at `path`. */
export function holdsDatabase(path: string, timeoutMs: number): boolean {
  if (!existsSync(path)) return false;
  const database = openDatabase(path, timeoutMs, true);
  try {
    return (
      (database.prepare("select count(*) from sqlite_master where type = 'table'").pluck().get() as number) >
      0
    );
  } finally {
    database.close();
  }
}

/**
 * The copy carries the source's WAL mode: switched to a rollback journal, its `-wal` is folded
 * in and removed, so the backup is one file that can be moved, renamed and opened read-only
 * alone. (The service switches it back to WAL when it opens it.)
 */
function selfContained(path: string, timeoutMs: number): void {
  const database = openDatabase(path, timeoutMs);
  try {
    database.pragma('journal_mode = DELETE');
  } finally {
    database.close();
  }
}

async function copy(from: SQLite.Database, to: string): Promise<CopyResult> {
  // The first step sizes the copy, every later one copies everything left: a step runs under one
  // read transaction, and a write by another connection between two steps restarts the copy.
  const progress = await from.backup(to, { progress: () => ALL_PAGES });
  return { pages: progress.totalPages };
}

/**
 * Copies the live database at `source` to `target` (replaced atomically, readable by the owner
 * only: it holds password and token hashes and the signing keys) and checks the copy.
 */
export async function backupSqlite(source: string, target: string, timeoutMs: number): Promise<CopyResult> {
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  // Created before SQLite opens it, so the copy is never readable by others, not even briefly.
  closeSync(openSync(partial, 'w', 0o600));
  chmodSync(partial, 0o600);
  const database = openDatabase(source, timeoutMs);
  try {
    const result = await copy(database, partial);
    selfContained(partial, timeoutMs);
    checkDatabase(partial, timeoutMs);
    renameSync(partial, target);
    return result;
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    database.close();
  }
}

/** Writes the backup at `backup` into the database at `target` (created when missing). */
export async function restoreSqlite(backup: string, target: string, timeoutMs: number): Promise<CopyResult> {
  checkDatabase(backup, timeoutMs);
  if (!existsSync(target)) closeSync(openSync(target, 'w', 0o600));
  const database = openDatabase(backup, timeoutMs, true);
  try {
    return await copy(database, target);
  } finally {
    database.close();
  }
}
