import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';

/** Where a command reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readStdin: () => Promise<string>;
}

export type OptionSpec = Record<
  string,
  { type: 'string' | 'boolean'; required?: boolean; multiple?: boolean; description: string }
>;

type OptionValue<S extends OptionSpec[string]> = S['type'] extends 'boolean'
  ? boolean
  : S['multiple'] extends true
    ? string[] | undefined
    : string | undefined;

type Args<O extends OptionSpec> = { [K in keyof O]: OptionValue<O[K]> };

interface CommandBase<O extends OptionSpec> {
  /** "noun verb", e.g. "account create". */
  readonly name: string;
  readonly summary: string;
  readonly options: O;
}

/** A command on the opened (and migrated) database. */
export interface DatabaseCommand<O extends OptionSpec = OptionSpec> extends CommandBase<O> {
  readonly bare?: false;
  run(ctx: AppContext, args: Args<O>, io: CliIo): Promise<void>;
}

/** A command on the database file itself (backup, restore): nothing is opened or migrated first. */
export interface BareCommand<O extends OptionSpec = OptionSpec> extends CommandBase<O> {
  readonly bare: true;
  run(config: Config, args: Args<O>, io: CliIo): Promise<void>;
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

export function usageLine(command: Command): string {
  const parts = Object.entries(command.options).map(([name, spec]) => {
    const flag =
      spec.type === 'boolean' ? `--${name}` : `--${name} ${name.toUpperCase().replaceAll('-', '_')}`;
    return spec.required ? flag : `[${flag}]`;
  });
  return `schoolauth ${command.name}${parts.length ? ` ${parts.join(' ')}` : ''}`;
}

export function parseOptions(
  command: Command,
  argv: string[],
): Record<string, string | string[] | boolean | undefined> {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(command.options).map(([n, s]) => [n, { type: s.type, multiple: s.multiple ?? false }]),
      ),
      strict: true,
      allowPositionals: false,
    }) as { values: typeof values });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]}; usage: ${usageLine(command)}`);
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && (values[name] === undefined || values[name] === '')) {
      throw new UsageError(`missing --${name}; usage: ${usageLine(command)}`);
    }
  }
  return values;
}

/** Reads a secret from stdin; strips exactly one trailing newline (SPEC §10). */
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
