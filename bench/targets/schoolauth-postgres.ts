/**
 * schoolauth on PostgreSQL (`--database postgres`): the private cluster of bench/postgres.ts, one
 * database `schoolauth`, and one instance or several (`--instances N`) behind the bench's
 * round-robin balancer (bench/balancer.ts, a process of its own on the load generator's core),
 * with the balancer's URL as their shared ISSUER. Otherwise configured as on SQLite
 * (schoolauth.ts). The server's CPU is every instance's plus the cluster's (postmaster and its
 * backends), so a request's database work counts as on SQLite, where it runs in the process.
 */
import { join } from 'node:path';
import { cpuSecondsOf, freePort, LOAD_CORE, type ServerProcess, startServer } from '../child.js';
import { submitPage } from '../html-form.js';
import { PgStats, RoundTripCounter } from '../pg-stats.js';
import { PrivateCluster, treeCpuSeconds } from '../postgres.js';
import { PROTECTED, SHIPPED_SERVER_ARGS, schoolauthEnv, seedDemo } from './schoolauth.js';
import type { OAuthTarget } from './target.js';

const BALANCER = join(import.meta.dirname, '..', 'servers', 'balancer-server.ts');
const DATABASE = 'schoolauth';

export interface PostgresOptions {
  readonly instances: number;
  readonly rateLimits: boolean;
  readonly logFile?: string | undefined;
  readonly log: (line: string) => void;
}

function sum(values: ReadonlyArray<number | undefined>): number | undefined {
  return values.some((v) => v === undefined) ? undefined : values.reduce<number>((a, v) => a + v!, 0);
}

export async function startSchoolauthPostgres(
  dataDir: string,
  options: PostgresOptions,
): Promise<OAuthTarget> {
  const cluster = await PrivateCluster.start(options.log);
  const started: ServerProcess[] = [];
  let stats: PgStats | undefined;
  const stopAll = async () => {
    for (const server of started.reverse()) await server.stop();
    await stats?.close();
    await cluster.stop();
  };
  try {
    await cluster.createDatabase(DATABASE);
    const balanced = options.instances > 1;
    const ports = await Promise.all(Array.from({ length: options.instances + (balanced ? 1 : 0) }, freePort));
    const balancerPort = balanced ? ports.pop()! : undefined;
    const env = {
      ...schoolauthEnv(dataDir, cluster.url(DATABASE), options.rateLimits),
      ...(balancerPort ? { ISSUER: `http://127.0.0.1:${balancerPort}` } : {}),
    };
    // The CLI migrates the new database and seeds the demo school before any instance starts.
    const who = seedDemo(env);
    const instances: ServerProcess[] = [];
    for (const port of ports) {
      const server = await startServer('schoolauth', {
        args: SHIPPED_SERVER_ARGS,
        env,
        port,
        readyPath: '/healthz',
        ...(options.logFile ? { logFile: options.logFile } : {}),
      });
      started.push(server);
      instances.push(server);
    }
    const front = balancerPort
      ? await startServer('balancer', {
          args: ['--import', 'tsx', BALANCER],
          env: { BACKENDS: ports.map((p) => `127.0.0.1:${p}`).join(',') },
          port: balancerPort,
          readyPath: '/healthz',
          core: LOAD_CORE,
        })
      : undefined;
    if (front) started.push(front);
    stats = await PgStats.connect(cluster.url('postgres'), DATABASE);
    const first = instances[0]!;
    const server: ServerProcess = {
      pid: first.pid,
      baseUrl: front?.baseUrl ?? first.baseUrl,
      stop: stopAll,
      memory: () => first.memory(),
      startProfile: () => first.startProfile(),
      stopProfile: (path) => first.stopProfile(path),
      loopDelay: (reset) => first.loopDelay(reset),
      fireHeldInterval: () => first.fireHeldInterval(),
      cpuSeconds: () => sum([...instances.map((i) => cpuSecondsOf(i.pid)), treeCpuSeconds(cluster.pid)]),
    };
    return {
      name: 'schoolauth',
      server,
      readerScope: `openid profile email ${PROTECTED.scope}`,
      agentScope: PROTECTED.scope,
      answerPage: (page, jar) => submitPage(page, jar, who),
      protectedPath: PROTECTED.path,
      roundTrips: new RoundTripCounter(stats),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
