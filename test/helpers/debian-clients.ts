/**
 * Driving the Debian-packaged OAuth clients of test/interop/debian-*.test.ts (issue 20) against a
 * listening server, each with its own defaults:
 *
 *   const skip = debianSkip(['python3-authlib']);      // false, or why the suite skips
 *   const server = await startLoggedServer();           // a listening app whose refusals are logged
 *   const child = startClient('/usr/bin/python3', [script, server.url]);
 *   const url = await child.waitFor(/^AUTHORIZE (\S+)$/m);              // the client prints its URL
 *   await signInAndReturn(server, url[1], person);      // the person's part; the redirect is delivered
 *   const result = JSON.parse((await child.waitFor(/^RESULT (.+)$/m))[1]);
 *   server.refused('/api/oauth/token');                 // 4xx answers of that path (first-try checks)
 *
 * test/run.mjs sets SCHOOLAUTH_TEST_DEBIAN_CLIENTS to the installed packages and, with CI=true,
 * fails when one is missing; elsewhere a suite whose packages are absent skips with the reason.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createTestApp, DIALECTS, type TestApp } from './app.js';
import { authorizeViaPages, Browser, type Person } from './flow.js';
import { captureLogLines } from './log-lines.js';

/** false when every package is installed, else the reason the suite skips. */
export function debianSkip(packages: readonly string[]): string | false {
  const installed = process.env.SCHOOLAUTH_TEST_DEBIAN_CLIENTS;
  if (installed === undefined) return 'run through `npm test` (test/run.mjs probes the Debian clients)';
  const absent = packages.filter((p) => !installed.split(' ').includes(p));
  return absent.length > 0 ? `not installed: apt-get install ${absent.join(' ')}` : false;
}

export interface LoggedServer {
  readonly t: TestApp;
  readonly url: string;
  /** "<status> <url>" of every answer ≥ 400 to a path starting with `path`. */
  refused(path: string): string[];
  close(): Promise<void>;
}

/**
 * A listening app logging every answer ≥ 400 (LOG_REQUESTS=errors). The external clients test the
 * wire protocol, not storage, so they run on the first dialect only; the HTTP suites cover both.
 */
export async function startLoggedServer(env: Record<string, string> = {}): Promise<LoggedServer> {
  const { sink, lines } = captureLogLines<{ url?: string; statusCode?: number }>();
  const t = await createTestApp(DIALECTS[0]!, {
    listen: true,
    env: { LOG_LEVEL: 'info', LOG_REQUESTS: 'errors', ...env },
    logStream: sink,
  });
  return {
    t,
    url: t.url,
    refused: (path) =>
      lines
        .filter((l) => l.statusCode !== undefined && l.statusCode >= 400 && l.url?.startsWith(path))
        .map((l) => `${l.statusCode} ${l.url}`),
    close: () => t.close(),
  };
}

/** A client process, killed at the latest after `timeoutMs`; its output can be awaited line by line. */
export class ClientProcess {
  private text = '';
  private readonly child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(
    command: string,
    args: readonly string[],
    options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {},
  ) {
    this.child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!])
      stream.on('data', (d: Buffer) => {
        this.text += d.toString();
      });
    if (options.input !== undefined) this.child.stdin!.end(options.input);
    const timer = setTimeout(() => this.kill(), options.timeoutMs ?? 30_000);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      }),
    );
  }

  /** Everything the process wrote (stdout and stderr), for assertions and failure messages. */
  output(): string {
    return this.text;
  }

  /** Resolves with the first match of `pattern` in the output; rejects when the process ends first. */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    const started = Date.now();
    for (;;) {
      const match = pattern.exec(this.text);
      if (match) return match;
      if (
        this.child.exitCode !== null ||
        this.child.signalCode !== null ||
        Date.now() - started > timeoutMs
      ) {
        throw new Error(
          `no ${pattern} in the output of ${this.child.spawnfile} (exit ${this.child.exitCode}):\n${this.text}`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/**
 * The person's part of a flow a client started: sign in and Allow on the pages of `authorizeUrl`,
 * then deliver the redirect to the client's loopback listener. Returns the redirect and the answer.
 */
export async function signInAndReturn(
  server: LoggedServer,
  authorizeUrl: string,
  person: Person,
  browser = new Browser(server.url),
): Promise<{ redirect: URL; status: number; body: string }> {
  const url = new URL(authorizeUrl);
  const redirect = await authorizeViaPages({
    baseUrl: server.url,
    params: Object.fromEntries(url.searchParams),
    email: person.email,
    password: person.password,
    decision: 'allow',
    browser,
  });
  const answer = await browser.get(redirect.href);
  return { redirect, status: answer.status, body: await answer.text() };
}
