import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/run.js';
import { type DialectName, openStorage, type Storage } from '../../src/storage/connect.js';
import { dropSchema, newSchemaName, PG_URL } from './app.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process against a database, with the given standard input. */
export async function cli(
  databaseUrl: string,
  argv: string[],
  stdin = '',
  env: Record<string, string> = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => stdin,
  };
  const code = await runCli(argv, io, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...env });
  return { code, stdout, stderr };
}

/** A migrated database the CLI runs against (a file for SQLite, a schema of its own on PostgreSQL). */
export interface CliDatabase {
  readonly url: string;
  /** The test's own connection, for looking at what the commands wrote. */
  readonly storage: Storage;
  close(): Promise<void>;
}

export async function cliDatabase(dialect: DialectName): Promise<CliDatabase> {
  const schema = dialect === 'postgres' ? newSchemaName() : undefined;
  const url = schema
    ? `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`
    : `sqlite:${join(mkdtempSync(join(tmpdir(), 'sa-cli-')), 'db.sqlite')}`;
  const migrated = await cli(url, ['migrate']);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  const storage = await openStorage(url);
  return {
    url,
    storage,
    async close() {
      await storage.close();
      if (schema) await dropSchema(schema);
    },
  };
}
