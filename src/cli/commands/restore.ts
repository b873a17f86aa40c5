import { resolve } from 'node:path';
import { holdsDatabase, restoreSqlite, sqliteFileOf } from '../../storage/sqlite/copy.js';
import { CommandError, defineCommand, UsageError } from '../command.js';

/**
 * `schoolauth restore --from FILE [--force]`: the backup becomes the database of DATABASE_URL.
 * Run it with the service stopped; replacing a database that holds data takes --force.
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
    const target = sqliteFileOf(config.databaseUrl);
    if (!target) {
      throw new CommandError(
        'restore writes a SQLite database file; for PostgreSQL use pg_restore (docs/deploy.md "Backups")',
      );
    }
    const from = resolve(args.from!);
    if (from === target)
      throw new UsageError(`--from ${args.from} is the database itself; name the backup file`);
    const timeoutMs = config.databaseTimeout * 1000;
    if (!args.force && holdsDatabase(target, timeoutMs)) {
      throw new UsageError(
        `${target} already holds a database; stop the service and add --force to replace it with the backup`,
      );
    }
    const { pages } = await restoreSqlite(from, target, timeoutMs).catch((error: Error) => {
      throw new CommandError(`cannot restore ${from}: ${error.message}`);
    });
    io.stdout(
      `restored ${from} into ${target} (${pages} pages); start the service: migrations run at start\n`,
    );
  },
});
