/**
 * The CLI's refusal of a database that is not there (storage/existing-database.ts), in one line
 * that says which path it used and where that path came from — DATABASE_URL, or DATA_DIR when
 * DATABASE_URL is not set, and the current directory a relative path is read from — so a cron
 * job run from the wrong folder or a mistyped variable is seen for what it is.
 */
import { isAbsolute } from 'node:path';
import type { Config } from '../config.js';
import type { NoDatabaseError } from '../storage/existing-database.js';
import { UsageError } from './command.js';

type Env = Readonly<Record<string, string | undefined>>;

const isSet = (env: Env, name: string) => (env[name]?.trim() ?? '') !== '';

/** Where the SQLite path came from. */
function sqliteOrigin(config: Config, env: Env): string {
  const url = config.databaseUrl;
  const path = url.slice('sqlite:'.length);
  const relative =
    path !== ':memory:' && !isAbsolute(path) ? `, relative to the current directory ${process.cwd()}` : '';
  if (isSet(env, 'DATABASE_URL')) return `the path comes from DATABASE_URL=${url}${relative}`;
  const dataDir = `DATA_DIR=${config.dataDir}${isSet(env, 'DATA_DIR') ? '' : ' (the default)'}`;
  return `DATABASE_URL is not set, so the database is DATA_DIR/schoolauth.db with ${dataDir}${relative}`;
}

export function missingDatabase(error: NoDatabaseError, config: Config, env: Env): UsageError {
  const sqlite = config.databaseUrl.startsWith('sqlite:');
  const where = sqlite ? error.where : `DATABASE_URL=${error.where}`;
  const what = sqlite ? `; ${sqliteOrigin(config, env)}` : '';
  return new UsageError(
    `no schoolauth database at ${where}: ${error.why}${what}. Run the command with the service's DATABASE_URL${sqlite ? ' or DATA_DIR' : ''} (docs/deploy.md "Running the CLI"), or create a new database there with \`schoolauth migrate\``,
  );
}
