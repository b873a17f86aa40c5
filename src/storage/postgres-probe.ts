/**
 * The first connection to PostgreSQL at start, made on its own so that a failure is told in one
 * line an operator can act on: DATABASE_URL (password masked), what went wrong, what to check.
 * The pool would otherwise surface the driver's bare message ("connect ECONNREFUSED …") from
 * whichever query came first, and a black-holed host would hang without a time limit.
 */
import pg from 'pg';
import { maskDatabaseUrl } from '../config.js';

// Defined in config.ts, which shows DATABASE_URL in its own errors too; exported here for its importers.
export { maskDatabaseUrl };

const PROBE_TIMEOUT_MS = 10_000;

/** A database that cannot be reached or entered at start. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

/** What a failed connection means, and what to check: by Node's errno or PostgreSQL's SQLSTATE. */
function explain(error: unknown, target: URL): string {
  const { code, message } = error as { code?: string; message?: string };
  const where = `${target.hostname}:${target.port || '5432'}`;
  const database = decodeURIComponent(target.pathname.slice(1)) || '(the user name)';
  const user = decodeURIComponent(target.username) || '(the system user)';
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused at ${where}: check that PostgreSQL is running and listening on that host and port`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `unknown host ${target.hostname}: check the host name in DATABASE_URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} cannot be reached (${code}): check the host, the port and any firewall`;
    case '3D000':
      return `database "${database}" does not exist: create it (createdb ${database}) or correct the database name`;
    case '28P01':
      return `password authentication failed for user "${user}": check the user name and password`;
    case '28000':
      return `user "${user}" may not connect (${message}): check the user name and the server's pg_hba.conf`;
    default:
      return /timeout/i.test(message ?? '')
        ? `no answer from ${where} within ${PROBE_TIMEOUT_MS / 1000} s: check the host, the port and any firewall`
        : `${message ?? String(error)}: check DATABASE_URL and the PostgreSQL server`;
  }
}

/**
 * Connects once and disconnects; throws DatabaseUnavailableError saying why it could not, naming
 * `databaseUrl` (the operator's DATABASE_URL, masked) rather than the `connectionString` derived from it.
 */
export async function probePostgres(connectionString: string, databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new DatabaseUnavailableError(
      `cannot connect to DATABASE_URL=${maskDatabaseUrl(databaseUrl)}: ${explain(error, new URL(connectionString))}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
