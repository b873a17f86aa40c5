/**
 * Queries built and compiled once per SQL dialect, then run with new parameters. Kysely builds
 * an immutable query tree and compiles it to SQL on every call; on the hot paths (token
 * exchange, bearer lookup, the protected GET) that was a fifth of the CPU per request
 * (docs/performance.md). A prepared query is written with the same typed builder, called once
 * with stand-ins for its arguments; the compiled SQL is kept and each call only fills the
 * parameter list.
 */
import type { Compilable, CompiledQuery, Insertable, Kysely, QueryResult } from 'kysely';
import type { DialectName } from './dialect.js';
import { dialectOf } from './dialect.js';
import { executeNamed } from './fixed-statements.js';
import type { Database } from './schema.js';
import type { SyncSql } from './sqlite/connection.js';
import { nameStatement } from './statement-names.js';

/** Stands in for the n-th argument while the query is compiled. */
class Argument {
  constructor(readonly index: number) {}
}

interface Template {
  readonly compiled: CompiledQuery<unknown>;
  /** (position in the parameter list, argument index) for every stand-in. */
  readonly slots: ReadonlyArray<readonly [number, number]>;
  /** Sent as a named statement (PostgreSQL, statement-names.ts). */
  readonly named: boolean;
}

export interface Prepared<A extends unknown[], R> {
  /** Every row. */
  all(db: Kysely<Database>, ...args: A): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Kysely<Database>, ...args: A): Promise<R | undefined>;
  /** Runs a write; answers the number of rows it changed. */
  run(db: Kysely<Database>, ...args: A): Promise<number>;
  /** Every row, run synchronously inside a SQLite store operation (sqlite/connection.ts). */
  allNow(sql: SyncSql, ...args: A): R[];
  /** The first row (or undefined), as `allNow`. */
  firstNow(sql: SyncSql, ...args: A): R | undefined;
  /** A write, as `allNow`; answers the number of rows it changed. */
  runNow(sql: SyncSql, ...args: A): number;
}

function compile<A extends unknown[]>(
  db: Kysely<Database>,
  build: (db: Kysely<Database>, ...args: A) => Compilable<unknown>,
  arity: number,
): Template {
  const stand = Array.from({ length: arity }, (_, index) => new Argument(index)) as unknown as A;
  const compiled = build(db, ...stand).compile();
  const named = dialectOf(db) === 'postgres' && nameStatement(compiled.sql);
  const slots: Array<readonly [number, number]> = [];
  compiled.parameters.forEach((value, position) => {
    if (value instanceof Argument) slots.push([position, value.index]);
  });
  // Fail at the first call, not with wrong data: every argument must reach the parameter list.
  for (let index = 0; index < arity; index++) {
    if (!slots.some(([, arg]) => arg === index)) {
      throw new Error(`prepared query: argument ${index} is not a bound parameter of ${compiled.sql}`);
    }
  }
  return { compiled, slots, named };
}

function fill<R>(template: Template, args: readonly unknown[]): CompiledQuery<R> {
  const parameters = template.compiled.parameters.slice();
  for (const [position, index] of template.slots) parameters[position] = args[index];
  return { ...template.compiled, parameters } as CompiledQuery<R>;
}

function run<R>(db: Kysely<Database>, template: Template, args: readonly unknown[]): Promise<QueryResult<R>> {
  return executeNamed<R>(db, fill<R>(template, args), template.named);
}

/**
 * `prepared((db, hash: string) => db.selectFrom('t').selectAll().where('hash', '=', hash))`: the
 * builder's extra parameters are the query's arguments; use each only as a bound value.
 */
export function prepared<A extends unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): Prepared<A, R> {
  const templates = new Map<DialectName, Template>();
  const templateFor = (db: Kysely<Database>): Template => {
    const dialect = dialectOf(db);
    let template = templates.get(dialect);
    if (!template) {
      template = compile(db, build, build.length - 1);
      templates.set(dialect, template);
    }
    return template;
  };
  const execute = (db: Kysely<Database>, args: A): Promise<QueryResult<R>> => {
    try {
      return run<R>(db, templateFor(db), args);
    } catch (error) {
      // A caller awaits a rejection, as it would from an async function; it never catches a throw.
      return Promise.reject(error);
    }
  };
  // `then` rather than async functions: one promise per call instead of two, on every request.
  return {
    all: (db, ...args) => execute(db, args).then((result) => result.rows),
    first: (db, ...args) => execute(db, args).then((result) => result.rows[0]),
    run: (db, ...args) => execute(db, args).then((result) => Number(result.numAffectedRows ?? 0n)),
    allNow: (sql, ...args) => sql.execute<R>(fill<R>(templateFor(sql.db), args)).rows,
    firstNow: (sql, ...args) => sql.execute<R>(fill<R>(templateFor(sql.db), args)).rows[0],
    runNow: (sql, ...args) =>
      Number(sql.execute<R>(fill<R>(templateFor(sql.db), args)).numAffectedRows ?? 0n),
  };
}

/** Inserts whole rows into `table`; the statement is compiled once per dialect and column set. */
export interface PreparedInsert<T extends keyof Database & string> {
  (db: Kysely<Database>, row: Insertable<Database[T]>): Promise<void>;
  /** The same insert inside a SQLite store operation (sqlite/connection.ts). */
  now(sql: SyncSql, row: Insertable<Database[T]>): void;
}

export function preparedInsert<T extends keyof Database & string>(table: T): PreparedInsert<T> {
  const templates = new Map<string, Template>();
  const templateFor = (db: Kysely<Database>, dialect: DialectName, columns: string[]): Template => {
    const key = `${dialect} ${columns.join(',')}`;
    let template = templates.get(key);
    if (!template) {
      const build = (trx: Kysely<Database>, ...values: unknown[]) =>
        trx
          .insertInto(table)
          .values(
            Object.fromEntries(columns.map((column, i) => [column, values[i]])) as Insertable<Database[T]>,
          );
      template = compile(db, build, columns.length);
      templates.set(key, template);
    }
    return template;
  };
  const parts = (db: Kysely<Database>, dialect: DialectName, row: Insertable<Database[T]>) => {
    const columns = Object.keys(row) as Array<keyof typeof row & string>;
    return [templateFor(db, dialect, columns), columns.map((column) => row[column])] as const;
  };
  const insert = async (db: Kysely<Database>, row: Insertable<Database[T]>) => {
    await run(db, ...parts(db, dialectOf(db), row));
  };
  insert.now = (sql: SyncSql, row: Insertable<Database[T]>) => {
    sql.execute(fill(...parts(sql.db, 'sqlite', row)));
  };
  return insert;
}
