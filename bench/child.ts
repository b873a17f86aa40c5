/**
 * Server child processes: started pinned to the server core, polled until they answer, read for
 * memory from /proc, stopped by pid. The load generator (this process) pins itself to the other
 * core, so server and client do not compete for one CPU.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

export const SERVER_CORE = 1;
export const LOAD_CORE = 0;

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether server and load generator get a core each (taskset present, at least 2 cores), unless
 * SCHOOLAUTH_BENCH_PIN=off: then they share the machine's cores, as a server with more than one
 * core does (the prune's worker thread, PRUNE_THREAD, needs a second core).
 */
export const PINNING =
  process.env.SCHOOLAUTH_BENCH_PIN !== 'off' && availableParallelism() >= 2 && hasTaskset();

/** Pins this process (the load generator) to its core. */
export function pinSelf(): void {
  if (PINNING) execFileSync('taskset', ['-cp', String(LOAD_CORE), String(process.pid)], { stdio: 'ignore' });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  readonly pid: number;
  readonly baseUrl: string;
  stop(): Promise<void>;
  /** process.memoryUsage() of the server (only when started with the probe). */
  memory(): Promise<NodeJS.MemoryUsage | undefined>;
  /** Starts a CPU profile in the server (only with the probe). */
  startProfile(): Promise<void>;
  /** Stops the CPU profile and writes it to `path`. */
  stopProfile(path: string): Promise<void>;
  /** CPU seconds used so far by everything that answers (default: this pid, see cpuSecondsOf). */
  cpuSeconds?(): number | undefined;
  /** The server's event-loop delay since the last reset (only with the probe); `reset` starts anew. */
  loopDelay(reset: boolean): Promise<LoopDelay | undefined>;
  /**
   * Runs the interval timers held by the probe (BENCH_HELD_INTERVAL_MS) once; answers when they
   * were started (epoch ms) and how many there were. Only with the probe.
   */
  fireHeldInterval(): Promise<{ at: number; timers: number } | undefined>;
}

/** From perf_hooks.monitorEventLoopDelay in the server (bench/servers/probe.mjs), in ms. */
export interface LoopDelay {
  readonly maxMs: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** The longest gap between the probe's 5 ms ticks, and what the loop's thread did in it. */
  readonly longestStall?: LoopStall;
}

/** bench/servers/loop-stalls.mjs: the split is there where Linux gives the thread's schedstat. */
export interface LoopStall {
  readonly gapMs: number;
  /** On the CPU: the server's own work on the loop. */
  readonly ranMs?: number;
  /** Runnable, waiting for the core. */
  readonly waitedMs?: number;
  /** At most this much of the wait went to the server's other threads; the rest to other processes. */
  readonly otherThreadsMs?: number;
  /** Neither: asleep in a system call (a disk read, an fsync, a lock). */
  readonly asleepMs?: number;
  /** V8's garbage-collection pauses inside the gap, in ms by kind (minor, major, …). */
  readonly gcMs?: Readonly<Record<string, number>>;
  /** What the thread was in at each 2 ms look during the stall: a system call's name, or "running". */
  readonly seen?: Readonly<Record<string, number>>;
  /**
   * The CPU each role of the server's threads took during the stall (from the sampler's first look,
   * 10 ms in, to its end), in ms: the loop, V8's platform pool, libuv's pool or node's own, worker threads.
   */
  readonly threadsMs?: Readonly<Record<string, number>>;
}

export interface StartOptions {
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly port: number;
  /** GET path that answers 200 once the server is ready. */
  readonly readyPath: string;
  /** Where the child's stdout and stderr go; default /dev/null. */
  readonly logFile?: string;
  /** Preload bench/servers/probe.mjs and open an IPC channel: memory usage, CPU profiles. */
  readonly probe?: boolean;
  /** Extra node flags (e.g. --cpu-prof). */
  readonly nodeFlags?: readonly string[];
  /** The core to pin it to (default: the server core). */
  readonly core?: number;
  /** A command that runs node (e.g. valgrind and its flags). */
  readonly wrapper?: readonly string[];
  /** How long it may take to answer the ready path (default 60 s). */
  readonly readyTimeoutMs?: number;
}

const PROBE = join(import.meta.dirname, 'servers', 'probe.mjs');

// Children die with the bench, also on Ctrl-C.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
process.on('SIGINT', () => process.exit(130));

export async function startServer(name: string, options: StartOptions): Promise<ServerProcess> {
  const out = openSync(options.logFile ?? '/dev/null', 'a');
  const nodeArgs = [
    ...(options.nodeFlags ?? []),
    ...(options.probe ? ['--import', PROBE] : []),
    ...options.args,
  ];
  const node = [...(options.wrapper ?? []), process.execPath, ...nodeArgs];
  const [command, args] = PINNING
    ? ['taskset', ['-c', String(options.core ?? SERVER_CORE), ...node]]
    : [node[0]!, node.slice(1)];
  const child = spawn(command, args, {
    env: { ...process.env, NODE_ENV: 'production', ...options.env, PORT: String(options.port) },
    stdio: options.probe ? ['ignore', out, out, 'ipc'] : ['ignore', out, out],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const baseUrl = `http://127.0.0.1:${options.port}`;
  await waitUntilReady(name, child, baseUrl + options.readyPath, options.readyTimeoutMs ?? 60_000);
  return {
    pid: child.pid!,
    baseUrl,
    stop: () => stopChild(child),
    memory: async () => (await ask(child, { kind: 'memory' }))?.value as NodeJS.MemoryUsage | undefined,
    startProfile: async () => void (await ask(child, { kind: 'profile:start' })),
    stopProfile: async (path) => void (await ask(child, { kind: 'profile:stop', path }, 60_000)),
    loopDelay: async (reset) => (await ask(child, { kind: 'loop', reset }))?.value as LoopDelay | undefined,
    fireHeldInterval: async () =>
      (await ask(child, { kind: 'interval:fire' }))?.value as { at: number; timers: number } | undefined,
  };
}

interface ProbeReply {
  readonly kind: string;
  readonly value?: unknown;
  readonly message?: string;
}

/** One request to the probe over IPC; undefined when the server has no probe or does not answer. */
async function ask(child: ChildProcess, message: object, timeoutMs = 5000): Promise<ProbeReply | undefined> {
  if (!child.connected) return undefined;
  const reply = await new Promise<ProbeReply | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    child.once('message', (answer) => {
      clearTimeout(timer);
      resolve(answer as ProbeReply);
    });
    child.send(message);
  });
  if (reply?.kind === 'error') throw new Error(`server probe: ${reply.message}`);
  return reply;
}

async function waitUntilReady(
  name: string,
  child: ChildProcess,
  url: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with code ${child.exitCode} before answering`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopChild(child);
  throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Resident set size of a process in bytes, from /proc (Linux); undefined elsewhere. */
export function rssOf(pid: number): number | undefined {
  const path = `/proc/${pid}/status`;
  if (!existsSync(path)) return undefined;
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(path, 'utf8'));
  return match ? Number(match[1]) * 1024 : undefined;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSecondsOf(pid: number): number | undefined {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return undefined;
  const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 Hz on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
