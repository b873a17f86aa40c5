/**
 * A private PostgreSQL cluster for `--database postgres`: initdb in a temporary directory, one
 * postmaster on a free loopback port (Unix socket in that directory only), pg_stat_statements
 * preloaded, tracking top-level statements (what clients send) with utility statements
 * (BEGIN and COMMIT count as round trips), every other
 * setting PostgreSQL's default (fsync and synchronous_commit included). The machine's own
 * clusters and configuration are not read or touched; the directory is removed at the end.
 * As root the cluster runs as the `postgres` OS user (PostgreSQL refuses to run as root): the
 * processes are started with its uid and gid, as `runuser -u postgres` would.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, PINNING, SERVER_CORE } from './child.js';

const OS_USER = 'postgres';

// A cluster outlives the bench only if nobody stops it: on exit (Ctrl-C included, see child.ts;
// SIGTERM here), an immediate shutdown and the directory removed, best effort.
const running = new Map<ChildProcess, string>();
process.on('exit', () => {
  for (const [postmaster, dir] of running) {
    postmaster.kill('SIGQUIT');
    rmSync(dir, { recursive: true, force: true });
  }
});
process.once('SIGTERM', () => process.exit(143));

/** The newest Debian/Ubuntu PostgreSQL binaries (/usr/lib/postgresql/<major>/bin). */
export function findBinaries(root = '/usr/lib/postgresql'): string {
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) {
    throw new Error(`no PostgreSQL server binaries under ${root} (Debian package postgresql)`);
  }
  return join(root, majors[0]!, 'bin');
}

function uidGid(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** CPU seconds of a process and its children, living (from /proc) and reaped (cutime, cstime). */
export function treeCpuSeconds(pid: number): number | undefined {
  const stat = (p: number) => {
    try {
      return readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    } catch {
      return undefined; // exited meanwhile
    }
  };
  const own = stat(pid);
  if (!own) return undefined;
  // Fields 14–17 of /proc/<pid>/stat: utime, stime, cutime, cstime, in clock ticks (100 Hz).
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = stat(Number(entry));
    // Field 4 is the parent's pid.
    if (fields && Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

export class PrivateCluster {
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly version: string,
    private readonly postmaster: ChildProcess,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  get pid(): number {
    return this.postmaster.pid!;
  }

  static async start(log: (line: string) => void): Promise<PrivateCluster> {
    const bin = findBinaries();
    const dir = mkdtempSync(join(tmpdir(), 'schoolauth-bench-pg-'));
    const data = join(dir, 'data');
    const as = userInfo().uid === 0 ? uidGid(OS_USER) : undefined;
    if (as) chownSync(dir, as.uid, as.gid);
    const spawnOptions = {
      ...(as ?? {}),
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    };
    try {
      execFileSync(
        join(bin, 'initdb'),
        ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-instructions'],
        { ...spawnOptions, stdio: 'ignore' },
      );
      const port = await freePort();
      const args = [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'shared_preload_libraries=pg_stat_statements',
        '-c',
        'pg_stat_statements.track=top',
        '-c',
        'pg_stat_statements.track_utility=on',
        '-c',
        'max_connections=100',
      ];
      const postgres = join(bin, 'postgres');
      // Pinned with the server under test: the database is part of what answers a request.
      const [command, commandArgs] = PINNING
        ? ['taskset', ['-c', String(SERVER_CORE), postgres, ...args]]
        : [postgres, args];
      const postmaster = spawn(command, commandArgs, { ...spawnOptions, stdio: 'ignore' });
      running.set(postmaster, dir);
      postmaster.once('exit', () => running.delete(postmaster));
      const cluster = new PrivateCluster(dir, port, bin.split('/').at(-2) ?? '?', postmaster);
      await cluster.waitUntilReady();
      log(`  private PostgreSQL ${cluster.version} cluster on 127.0.0.1:${port} (${dir})`);
      return cluster;
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (this.postmaster.exitCode !== null) {
        throw new Error(`postgres exited with code ${this.postmaster.exitCode} before accepting connections`);
      }
      const client = new pg.Client({ connectionString: this.url('postgres') });
      try {
        await client.connect();
        await client.query('create extension if not exists pg_stat_statements');
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    throw new Error('the private PostgreSQL cluster did not accept connections within 30 s');
  }

  async createDatabase(name: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.url('postgres') });
    await client.connect();
    try {
      await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
  }

  /** Fast shutdown (SIGINT), then the directory goes. */
  async stop(): Promise<void> {
    const { postmaster } = this;
    if (postmaster.exitCode === null && postmaster.signalCode === null) {
      const exited = new Promise<void>((resolve) => postmaster.once('exit', () => resolve()));
      postmaster.kill('SIGINT');
      const timer = setTimeout(() => postmaster.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
