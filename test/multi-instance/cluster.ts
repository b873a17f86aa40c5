/**
 * Two server processes on one fresh PostgreSQL schema, sharing one ISSUER (A's URL): what a
 * deployment of several instances behind a load balancer looks like.
 */
import { dropSchema, freePort, newSchemaName, PG_URL } from '../helpers/app.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';

export interface Cluster {
  readonly a: ServerProcess;
  readonly b: ServerProcess;
  readonly issuer: string;
  /** DATABASE_URL of the shared schema, for the CLI. */
  readonly databaseUrl: string;
  close(): Promise<void>;
}

/**
 * `via` rewrites the instances' DATABASE_URL (e.g. through a TcpProxy a test cuts);
 * `databaseUrl` stays the direct one, for the CLI and checks.
 */
export async function startCluster(
  env: Record<string, string> = {},
  via: (url: string) => string = (url) => url,
): Promise<Cluster> {
  const schema = newSchemaName();
  const databaseUrl = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
  const portA = await freePort();
  const issuer = `http://127.0.0.1:${portA}`;
  const shared = { DATABASE_URL: via(databaseUrl), ISSUER: issuer, DATABASE_POOL_SIZE: '4', ...env };
  // A first: it migrates and creates the first signing key; B finds both ready.
  const a = await startServer({ ...shared, PORT: String(portA) });
  const b = await startServer(shared);
  return {
    a,
    b,
    issuer,
    databaseUrl,
    async close() {
      await Promise.all([a.stop(), b.stop()]);
      await dropSchema(schema);
    },
  };
}
