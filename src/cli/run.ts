/**
 * `schoolauth <noun> <verb> [--options]`: finds the command, checks its arguments, opens the
 * database (migrating it; only `migrate` and `demo` may create it), runs, and turns every failure into one line and an exit code:
 * 2 for wrong usage, 1 for a command that could not be carried out.
 */
import { bootstrap } from '../bootstrap.js';
import { ConfigError, loadConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { newDatabaseWarning, sealedKeysNotice } from '../ops/start-up-warnings.js';
import { NoDatabaseError } from '../storage/existing-database.js';
import { type CliIo, type Command, commandHelp, parseOptions, UsageError } from './command.js';
import { closest } from './did-you-mean.js';
import { missingDatabase } from './missing-database.js';
import { COMMANDS } from './registry.js';
import { packageVersion } from './version.js';

const HELP_FLAGS = ['--help', '-h'];
const VERSION_FLAGS = ['--version', '-v'];

const nounOf = (command: Command) => command.name.split(' ')[0]!;

function listing(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
}

function help(): string {
  return `usage: schoolauth <command> [options]\n\n${listing(COMMANDS)}\n\nschoolauth <command> --help shows a command's options; schoolauth --version the version. Configuration comes from the environment (DATABASE_URL, …); see the README.\n`;
}

/** The commands of a noun with verbs (`account`, `keys`, …), or none. */
const subcommands = (noun: string): Command[] => COMMANDS.filter((c) => c.name.startsWith(`${noun} `));

function nounHelp(noun: string, commands: readonly Command[]): string {
  return `usage: schoolauth ${noun} <${commands.map((c) => c.name.split(' ')[1]).join('|')}> [options]\n\n${listing(commands)}\n\nschoolauth ${noun} <command> --help shows a command's options.\n`;
}

function findCommand(argv: readonly string[]): { command: Command; rest: string[] } {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  if (argv.length === 0) {
    const nouns = [...new Set(COMMANDS.map(nounOf))].join(', ');
    throw new UsageError(`missing command; try one of: ${nouns} (schoolauth --help lists them all)`);
  }
  const commands = subcommands(argv[0]!);
  if (commands.length > 0) {
    const verbs = commands.map((c) => c.name.split(' ')[1]!);
    const what = argv.length === 1 ? 'needs a command' : `has no command "${argv[1]}"`;
    const guess = argv.length > 1 ? closest(argv[1]!, verbs) : undefined;
    const use = guess ? `; did you mean "${argv[0]} ${guess}"? Use one of` : '; use one of';
    throw new UsageError(`${argv[0]} ${what}${use}: ${verbs.join(', ')}\n\n${listing(commands)}`);
  }
  const guess = guessCommand(argv);
  throw new UsageError(
    `unknown command "${argv.slice(0, 2).join(' ')}"${guess ? `; did you mean "${guess}"?` : ';'} schoolauth --help lists the commands`,
  );
}

/** The command a mistyped noun (and verb) most likely meant: `acount lst` → `account list`. */
function guessCommand(argv: readonly string[]): string | undefined {
  const noun = closest(argv[0]!, [...new Set(COMMANDS.map(nounOf))]);
  if (!noun) return undefined;
  const verbs = subcommands(noun).map((c) => c.name.split(' ')[1]!);
  if (verbs.length === 0) return noun;
  const typed = argv[1];
  if (typed === undefined || typed.startsWith('-')) return noun;
  const verb = verbs.includes(typed) ? typed : closest(typed, verbs);
  return verb ? `${noun} ${verb}` : noun;
}

/** Help asked for, as `--help`, `help [noun [verb]]` or `<noun> --help`: the text, else undefined. */
function helpFor(argv: readonly string[]): string | undefined {
  const words = argv[0] === 'help' ? argv.slice(1) : argv;
  const asked = argv[0] === 'help' || words.some((w) => HELP_FLAGS.includes(w));
  if (!asked) return undefined;
  const named = words.filter((w) => !w.startsWith('-'));
  if (named.length === 0) return help();
  const command = COMMANDS.find((c) => c.name === named.slice(0, 2).join(' ') || c.name === named[0]);
  if (command) return commandHelp(command);
  const commands = subcommands(named[0]!);
  if (commands.length > 0) return nounHelp(named[0]!, commands);
  // Help for a command that does not exist: the same refusal as running it, "did you mean" included.
  findCommand(named);
  return undefined;
}

export async function runCli(
  argv: readonly string[],
  io: CliIo,
  env: Readonly<Record<string, string | undefined>> = process.env,
  now?: () => number,
): Promise<number> {
  let ctx: AppContext | undefined;
  try {
    if (argv.length === 1 && VERSION_FLAGS.includes(argv[0]!)) {
      io.stdout(`schoolauth ${packageVersion()}\n`);
      return 0;
    }
    const text = helpFor(argv);
    if (text !== undefined) {
      io.stdout(text);
      return 0;
    }
    const { command, rest } = findCommand(argv);
    const { values, argument } = parseOptions(command, rest);
    const config = loadConfig(env);
    const missing = (error: unknown) => {
      throw error instanceof NoDatabaseError ? missingDatabase(error, config, env) : error;
    };
    if (command.bare) {
      await command.run(config, values as never, io, argument).catch(missing);
      return 0;
    }
    const started = await bootstrap(config, now, { existing: !command.createsDatabase }).catch(missing);
    ctx = started;
    const created = newDatabaseWarning(started);
    if (created) io.stderr(`schoolauth: ${created.message}\n`);
    const sealed = sealedKeysNotice(started);
    if (sealed) io.stderr(`schoolauth: ${sealed.message}\n`);
    await command.run(ctx, values as never, io, argument);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.stderr(`schoolauth: ${error.message}\n`);
      return 2;
    }
    io.stderr(`schoolauth: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await ctx?.storage.close();
  }
}
