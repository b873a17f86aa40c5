/**
 * The SQLite driver package for the running Node.js (docs/decisions.md "Node.js versions"):
 * better-sqlite3 13 (the `better-sqlite3-13` alias in package.json) where Node-API 10 exists
 * (Node 22.14 and later, 24, 26), better-sqlite3 12 on Node 20. 12 wraps its objects with
 * `node::ObjectWrap`, which aborts on Node 24.19–24.21 when V8 collects a statement outside a
 * JavaScript call (`Assertion failed: (env) != nullptr`, nodejs/node#65446); 13 is built on
 * Node-API and ships its binary in the package, but needs Node-API 10, which Node 20 lacks. Both
 * are installed; only the one chosen here is ever loaded. Everything that opens a database, on
 * the main thread or a worker (`SQLITE_DRIVER`), takes it from here.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The Node-API version better-sqlite3 13's binary is built for (its binding.gyp). */
const NODE_API_OF_13 = 10;

/** The package name (or alias) of the driver for a runtime offering Node-API `napi`. */
export function driverPackageFor(napi: string | undefined): 'better-sqlite3' | 'better-sqlite3-13' {
  return Number(napi) >= NODE_API_OF_13 ? 'better-sqlite3-13' : 'better-sqlite3';
}

/** The driver package this process uses. */
export const SQLITE_PACKAGE = driverPackageFor(process.versions.napi);

/** The driver's entry file, for worker threads that open a connection of their own. */
export const SQLITE_DRIVER = require.resolve(SQLITE_PACKAGE);

/** The better-sqlite3 `Database` class; 12 and 13 have the same API. */
const SQLite: typeof BetterSqlite3 = require(SQLITE_PACKAGE);

// The types of @types/better-sqlite3 (SQLite.Database, SQLite.Statement), as on the package's own
// default export.
declare namespace SQLite {
  type Database = BetterSqlite3.Database;
  type Statement = BetterSqlite3.Statement;
}

export default SQLite;
