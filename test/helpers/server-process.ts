/**
 * A real `node --import tsx src/main.ts` process, for what only a process shows: signals,
 * several instances on one database, key changes picked up without a restart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './app.js';

export interface ServerProcess {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

const ROOT = new URL('../..', import.meta.url).pathname;

function spawnServer(env: Record<string, string>, port: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'off',
      SEED_DEMO: 'off',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A server process that is expected not to start: its exit code and everything it wrote. */
export async function serverExit(
  env: Record<string, string>,
  timeoutMs = 60000,
): Promise<{ code: number | null; output: string }> {
  const child = spawnServer(env, env.PORT ? Number(env.PORT) : await freePort());
  let output = '';
  const collect = (d: Buffer) => {
    output += d.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output };
}

export async function startServer(
  env: Record<string, string>,
  readyTimeoutMs = 60000,
): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  let output = '';
  const child = spawnServer(env, port);
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > readyTimeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`server not ready after ${readyTimeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
