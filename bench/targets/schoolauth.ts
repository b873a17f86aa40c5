/**
 * schoolauth as shipped: the compiled build (`node dist/src/main.js`, with the node flags `npm start`
 * gives it) on a fresh SQLite file,
 * production logging (LOG_LEVEL=info, to /dev/null unless a log file is asked for), rate limits
 * on with every limit raised above any load the bench makes (so their cost shows, never a 429),
 * and the demo school seeded beforehand with the CLI so the bench knows the sign-in.
 * `rateLimits: false` is the configuration measured before issue 22: RATE_LIMITS=off.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startServer } from '../child.js';
import { type Credentials, submitPage } from '../html-form.js';
import type { OAuthTarget } from './target.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const PROTECTED = { path: '/api/v1/account', scope: 'account:read' };

/**
 * The node flags of `npm start` (package.json: `node <flags> scripts/start.mjs`), so the bench runs
 * the server as an operator does; throws when the start script has another shape, rather than
 * measuring without them.
 */
export function shippedNodeFlags(packageJson = join(ROOT, 'package.json')): string[] {
  const start: unknown = JSON.parse(readFileSync(packageJson, 'utf8')).scripts?.start;
  const words = typeof start === 'string' ? start.trim().split(/\s+/) : [];
  if (
    words[0] !== 'node' ||
    words.at(-1) !== 'scripts/start.mjs' ||
    !words.slice(1, -1).every((w) => w.startsWith('--'))
  )
    throw new Error(`package.json's start script is not "node <flags> scripts/start.mjs": ${String(start)}`);
  return words.slice(1, -1);
}

/** How the bench runs the compiled server: `npm start`'s node flags, then dist/src/main.js. */
export const SHIPPED_SERVER_ARGS: readonly string[] = [...shippedNodeFlags(), join(ROOT, 'dist/src/main.js')];

/** The built CLI (`schoolauth`): the lab seeds and prunes through it. */
export const CLI = join(ROOT, 'dist/src/cli/main.js');

export function seedDemo(env: Record<string, string>): Credentials {
  const out = execFileSync(process.execPath, [CLI, 'demo'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  const match = /sign in as (\S+) with password (\S+)/.exec(out);
  if (!match) throw new Error(`unexpected output of "schoolauth demo": ${out}`);
  return { email: match[1]!, password: match[2]! };
}

/** Every limit, per minute: far above what one bench run sends (a few million requests at most). */
export const BENCH_LIMITS = {
  RATE_LIMIT_REGISTER: '10000000',
  RATE_LIMIT_TOKEN: '10000000',
  RATE_LIMIT_API: '10000000',
  RATE_LIMIT_SIGNIN: '10000000',
} as const;

/** The rate-limit part of the environment, as the report states it. */
export function rateLimitEnv(rateLimits: boolean): Record<string, string> {
  return rateLimits ? { RATE_LIMITS: 'on', ...BENCH_LIMITS } : { RATE_LIMITS: 'off' };
}

/** The environment of every schoolauth the bench starts, on SQLite or PostgreSQL. */
export function schoolauthEnv(
  dataDir: string,
  databaseUrl: string,
  rateLimits: boolean,
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...rateLimitEnv(rateLimits),
    // Codes are minted before a run and redeemed during it: give them the longest allowed life.
    CODE_TTL: '600',
    PRUNE_INTERVAL: '0',
  };
}

export interface SchoolauthOptions {
  readonly logFile?: string | undefined;
  readonly probe?: boolean;
  /** A command that runs node (valgrind, for one). */
  readonly wrapper?: readonly string[];
  readonly readyTimeoutMs?: number;
  /** Rate limits on, raised above the load (default: as shipped), or RATE_LIMITS=off. */
  readonly rateLimits?: boolean;
  /** Environment overriding the defaults (DATABASE_URL, PRUNE_INTERVAL, …). */
  readonly env?: Record<string, string>;
  /** Runs once the database is migrated and seeded, before the server starts (a fill). */
  readonly beforeStart?: (env: Record<string, string>, issuer: string) => Promise<void>;
}

export async function startSchoolauth(
  dataDir: string,
  options: SchoolauthOptions = {},
): Promise<OAuthTarget> {
  const { rateLimits = true, env: extraEnv, beforeStart, ...start } = options;
  const port = await freePort();
  const env = {
    ...schoolauthEnv(dataDir, `sqlite:${join(dataDir, 'schoolauth.db')}`, rateLimits),
    ...extraEnv,
  };
  const who = seedDemo(env);
  await beforeStart?.(env, `http://127.0.0.1:${port}`);
  const server = await startServer('schoolauth', {
    args: SHIPPED_SERVER_ARGS,
    env,
    port,
    readyPath: '/healthz',
    ...start,
  });
  return {
    name: 'schoolauth',
    server,
    readerScope: `openid profile email ${PROTECTED.scope}`,
    agentScope: PROTECTED.scope,
    answerPage: (page, jar) => submitPage(page, jar, who),
    protectedPath: PROTECTED.path,
  };
}
