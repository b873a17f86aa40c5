import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  DatabaseInUseError,
  databaseFileOf,
  holdServerLock,
  holdsDatabase,
  restoreDatabaseFile,
  type ServerLock,
} from '../../storage/database-file.js';
import { CommandError, defineCommand, UsageError } from '../command.js';

/**
 * The lock every server holds on its SQLite file (sqlite/server-lock.ts), taken for the restore:
 * a server still running would go on serving what it has read and cached, and write over the
 * restored pages; and while the restore holds it, no server can start on the file half-written.
 */
function lockOutServers(target: string): ServerLock {
  try {
    return holdServerLock(target);
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error;
    const server = error.pid === undefined ? 'a schoolauth server' : `a schoolauth server (pid ${error.pid})`;
    const stop =
      error.pid === undefined
        ? 'systemctl stop schoolauth, or end its process'
        : `systemctl stop schoolauth, or kill ${error.pid}`;
    throw new CommandError(
      `${server} is serving ${target}; stop it first (${stop}), then run the restore again and start it: a server left running would go on serving its old data over the restored file`,
    );
  }
}

/**
 * `schoolauth restore --from FILE [--force]`: the backup becomes the database of DATABASE_URL.
 * Refused while a server holds the database; replacing a database that holds data takes --force.
 * The one command besides migrate and demo that may create the database file: restoring onto a
 * new machine is what it is for.
 */
export const restore = defineCommand({
  name: 'restore',
  summary: 'Replace the SQLite database with a backup made by schoolauth backup (stop the service first)',
  bare: true,
  options: {
    from: { type: 'string', required: true, description: 'the backup file to restore' },
    force: { type: 'boolean', description: 'replace a database that already holds data' },
  },
  async run(config, args, io) {
    const target = databaseFileOf(config.databaseUrl);
    if (!target) {
      throw new CommandError(
        'restore writes a SQLite database file; for PostgreSQL use pg_restore (docs/deploy.md "Backups")',
      );
    }
    const from = resolve(args.from!);
    if (from === target)
      throw new UsageError(`--from ${args.from} is the database itself; name the backup file`);
    if (!existsSync(dirname(target))) {
      throw new UsageError(
        `the directory ${dirname(target)} of DATABASE_URL=${config.databaseUrl} does not exist; create it (mode 0700), or correct DATABASE_URL or DATA_DIR`,
      );
    }
    const timeoutMs = config.databaseTimeout * 1000;
    const lock = lockOutServers(target);
    try {
      if (!args.force && holdsDatabase(target, timeoutMs)) {
        throw new UsageError(`${target} already holds a database; add --force to replace it with the backup`);
      }
      const { pages } = await restoreDatabaseFile(from, target, timeoutMs).catch((error: Error) => {
        throw new CommandError(`cannot restore ${from}: ${error.message}`);
      });
      io.stdout(
        `restored ${from} into ${target} (${pages} pages); start the service: migrations run at start\n`,
      );
    } finally {
      lock.release();
    }
  },
});
