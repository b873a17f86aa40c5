/**
 * `schoolauth <noun> <verb> [--options]`: finds the command, checks its arguments, opens the
 * database (migrating it), runs, and turns every failure into one line and an exit code:
 * 2 for wrong usage, 1 for a command that could not be carried out.
 */
import { bootstrap } from '../bootstrap.js';
import { ConfigError, loadConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { type CliIo, type Command, parseOptions, UsageError, usageLine } from './command.js';
import { COMMANDS } from './registry.js';

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `usage: schoolauth <command> [options]\n\n${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}\n\nConfiguration comes from the environment (DATABASE_URL, …); see the README.\n`;
}

function findCommand(argv: readonly string[]): { command: Command; rest: string[] } {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  const nouns = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))].join(', ');
  throw new UsageError(
    argv.length === 0
      ? `missing command; try one of: ${nouns} (schoolauth --help lists them all)`
      : `unknown command "${argv.slice(0, 2).join(' ')}"; schoolauth --help lists the commands`,
  );
}

export async function runCli(
  argv: readonly string[],
  io: CliIo,
  env: Readonly<Record<string, string | undefined>> = process.env,
  now?: () => number,
): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout(help());
    return 0;
  }
  let ctx: AppContext | undefined;
  try {
    const { command, rest } = findCommand(argv);
    if (rest.includes('--help')) {
      io.stdout(`${usageLine(command)}\n  ${command.summary}\n`);
      return 0;
    }
    const args = parseOptions(command, rest);
    const config = loadConfig(env);
    if (command.bare) {
      await command.run(config, args as never, io);
      return 0;
    }
    ctx = await bootstrap(config, now);
    await command.run(ctx, args as never, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`schoolauth: ${error.message}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`schoolauth: ${error.message}\n`);
      return 2;
    }
    io.stderr(`schoolauth: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await ctx?.storage.close();
  }
}
