import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';

/** Where a command reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readStdin: () => Promise<string>;
}

export interface OptionDefinition {
  readonly type: 'string' | 'boolean';
  readonly required?: boolean;
  readonly multiple?: boolean;
  readonly description: string;
  /** The accepted values: checked before the command runs, offered by shell completion. */
  readonly choices?: readonly string[];
}

export type OptionSpec = Record<string, OptionDefinition>;

type OptionValue<S extends OptionDefinition> = S['type'] extends 'boolean'
  ? boolean
  : S['multiple'] extends true
    ? string[] | undefined
    : string | undefined;

/** A positional argument, e.g. the shell of `completion bash`. */
export interface ArgumentSpec {
  readonly name: string;
  readonly choices: readonly string[];
}

type Args<O extends OptionSpec> = { [K in keyof O]: OptionValue<O[K]> };

interface CommandBase<O extends OptionSpec> {
  /** "noun verb", e.g. "account create". */
  readonly name: string;
  readonly summary: string;
  readonly options: O;
  readonly argument?: ArgumentSpec;
}

/** A command on the opened (and migrated) database. */
export interface DatabaseCommand<O extends OptionSpec = OptionSpec> extends CommandBase<O> {
  readonly bare?: false;
  /**
   * May create the database (`migrate`, `demo`). Every other command refuses a database that
   * does not exist or has no schoolauth tables (docs/deploy.md "Running the CLI").
   */
  readonly createsDatabase?: true;
  run(ctx: AppContext, args: Args<O>, io: CliIo, argument: string | undefined): Promise<void>;
}

/**
 * A command that opens nothing first: on the database file itself (backup, restore), or on no
 * database at all (completion).
 */
export interface BareCommand<O extends OptionSpec = OptionSpec> extends CommandBase<O> {
  readonly bare: true;
  run(config: Config, args: Args<O>, io: CliIo, argument: string | undefined): Promise<void>;
}

export type Command<O extends OptionSpec = OptionSpec> = DatabaseCommand<O> | BareCommand<O>;

/** A wrong or missing argument: exit code 2 and one line saying what to type. */
export class UsageError extends Error {}
/** The command was understood but cannot be carried out: exit code 1. */
export class CommandError extends Error {}

export function defineCommand<O extends OptionSpec>(command: DatabaseCommand<O>): DatabaseCommand<O>;
export function defineCommand<O extends OptionSpec>(command: BareCommand<O>): BareCommand<O>;
export function defineCommand<O extends OptionSpec>(command: Command<O>): Command<O> {
  return command;
}

const placeholder = (name: string) => name.toUpperCase().replaceAll('-', '_');

function flag(name: string, spec: OptionDefinition): string {
  return spec.type === 'boolean' ? `--${name}` : `--${name} ${placeholder(name)}`;
}

export function usageLine(command: Command): string {
  const parts = Object.entries(command.options).map(([name, spec]) =>
    spec.required ? flag(name, spec) : `[${flag(name, spec)}]`,
  );
  if (command.argument) parts.unshift(command.argument.choices.join('|'));
  return `schoolauth ${command.name}${parts.length ? ` ${parts.join(' ')}` : ''}`;
}

/** `schoolauth <command> --help`: usage, what it does, and every option with its values. */
export function commandHelp(command: Command): string {
  const rows = Object.entries(command.options).map(([name, spec]) => {
    const values = spec.choices ? ` (one of: ${spec.choices.join(', ')})` : '';
    return [flag(name, spec), `${spec.description}${values}${spec.required ? '; required' : ''}`] as const;
  });
  const width = Math.max(0, ...rows.map(([f]) => f.length));
  const options = rows.length
    ? `\noptions:\n${rows.map(([f, text]) => `  ${f.padEnd(width)}  ${text}`).join('\n')}\n`
    : '';
  return `usage: ${usageLine(command)}\n\n${command.summary}\n${options}`;
}

function oneOf(what: string, value: string, choices: readonly string[], command: Command): void {
  if (!choices.includes(value)) {
    throw new UsageError(
      `${what} must be one of ${choices.join(', ')}, not "${value}"; usage: ${usageLine(command)}`,
    );
  }
}

export interface ParsedArguments {
  readonly values: Record<string, string | string[] | boolean | undefined>;
  readonly argument: string | undefined;
}

export function parseOptions(command: Command, argv: string[]): ParsedArguments {
  let parsed: { values: ParsedArguments['values']; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(command.options).map(([n, s]) => [n, { type: s.type, multiple: s.multiple ?? false }]),
      ),
      strict: true,
      allowPositionals: command.argument !== undefined,
    }) as typeof parsed;
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]}; usage: ${usageLine(command)}`);
  }
  const { values, positionals } = parsed;
  for (const [name, spec] of Object.entries(command.options)) {
    const value = values[name];
    if (spec.required && (value === undefined || value === '')) {
      throw new UsageError(`missing --${name}; usage: ${usageLine(command)}`);
    }
    if (spec.choices && typeof value === 'string') oneOf(`--${name}`, value, spec.choices, command);
  }
  if (!command.argument) return { values, argument: undefined };
  if (positionals.length !== 1) {
    throw new UsageError(`expected one ${command.argument.name}; usage: ${usageLine(command)}`);
  }
  oneOf(`the ${command.argument.name}`, positionals[0]!, command.argument.choices, command);
  return { values, argument: positionals[0] };
}

/** Reads a secret from stdin; strips exactly one trailing newline (docs/decisions.md "Admin CLI"). */
export async function readSecretFromStdin(io: CliIo): Promise<string> {
  const text = await io.readStdin();
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

export function table(rows: Array<Record<string, string | number | null>>): string {
  if (rows.length === 0) return '(none)\n';
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) =>
    `${cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  return line(columns) + rows.map((r) => line(columns.map((c) => String(r[c] ?? '')))).join('');
}

export function isoTime(epoch: number | null): string {
  return epoch === null ? '' : new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
}
