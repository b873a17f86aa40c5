import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/run.js';

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
