import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { backupDatabaseFile, databaseFileOf } from '../../storage/database-file.js';
import { requireExistingSqlite } from '../../storage/existing-database.js';
import { CommandError, defineCommand, UsageError } from '../command.js';

/** `schoolauth backup --to FILE`: an online, consistent copy of a running SQLite database. */
export const backup = defineCommand({
  name: 'backup',
  summary: 'Copy the SQLite database, while the service runs, to a file (SQLite online backup)',
  bare: true,
  options: {
    to: { type: 'string', required: true, description: 'the backup file to write' },
    force: { type: 'boolean', description: 'replace the file at --to if there is one' },
  },
  async run(config, args, io) {
    const source = databaseFileOf(config.databaseUrl);
    if (!source) {
      throw new CommandError(
        'backup copies a SQLite database file; for PostgreSQL use pg_dump -Fc or pg_basebackup (docs/deploy.md "Backups")',
      );
    }
    // A backup of nothing is no backup: the source must be schoolauth's database, and stays unchanged.
    requireExistingSqlite(source);
    const target = resolve(args.to!);
    if ([source, `${source}-wal`, `${source}-shm`].includes(target)) {
      throw new UsageError(`--to ${args.to} is the database itself; name a backup file elsewhere`);
    }
    // An earlier backup is never replaced silently: --force says the operator means it.
    if (!args.force && existsSync(target)) {
      throw new UsageError(`--to ${args.to} already exists; name a new file, or add --force to replace it`);
    }
    const { pages } = await backupDatabaseFile(source, target, config.databaseTimeout * 1000).catch(
      (error: Error) => {
        throw new CommandError(`cannot back up ${source} to ${target}: ${error.message}`);
      },
    );
    io.stdout(`backed up ${source} to ${target} (${pages} pages, integrity_check ok)\n`);
  },
});
