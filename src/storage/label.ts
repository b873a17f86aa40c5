import { resolve } from 'node:path';

/**
 * How logs name the database: the SQLite file's absolute path (so a full disk names its
 * file system), or PostgreSQL's host, port and database — never the user or password.
 */
export function databaseLabel(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    return path === ':memory:' ? 'sqlite in memory' : `sqlite file ${resolve(path)}`;
  }
  try {
    const url = new URL(databaseUrl);
    return `postgres ${url.host}${url.pathname}`;
  } catch {
    return 'postgres';
  }
}
