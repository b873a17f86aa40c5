/**
 * Pruning: deletes rows nothing can use any more. Only the dead goes: expired codes, tokens,
 * sessions, rate-limit windows and forgotten sign-in counts; grants left with no code or token;
 * and self-registered clients abandoned by liveness (docs/configuration.md `CLIENT_IDLE_TTL`): no grant left and no use for
 * CLIENT_IDLE_TTL. Clients known from a metadata document go the same way (their document brings
 * them back at the next authorization request). Registered integrations are never pruned.
 *
 * Every delete goes in bounded statements (each its own transaction) of `batchSize` rows, with a
 * turn of the event loop between them: a single DELETE of a million expired rows held SQLite's
 * write lock, and with it the server's event loop (better-sqlite3 is synchronous), for seconds;
 * on PostgreSQL it held row locks and bloated one transaction. Between statements requests run;
 * what they write is judged by the same conditions at the next statement.
 *
 * Grants: a prune checks only those that lost a code or token to it, and the walk over every
 * grant (`walkAllGrants`) is the safety net; prune-grants.ts says why that is complete.
 */
import type { Config } from '../config.js';
import type { ExpiringTable, Upkeep, WalkedTable } from '../storage/contract/upkeep.js';
import { inBatches, type Pace, walkDeleting } from './prune-batches.js';
import { checkGrants, LosingGrants, walkGrants } from './prune-grants.js';

/**
 * Rows are deleted only when they died this long ago, so a request that judged a row alive a
 * moment before it expired (a code redeemed in its last second) never loses what it writes.
 */
export const PRUNE_MARGIN = 300;

/** Rows per statement. */
export const PRUNE_BATCH = 2000;

export interface PruneCounts {
  codes: number;
  accessTokens: number;
  refreshTokens: number;
  grants: number;
  sessions: number;
  /** Rate-limit windows and sign-in counts that are over. */
  rateLimits: number;
  clients: number;
}

type PruneConfig = Pick<Config, 'codeTtl' | 'sessionAbsoluteTtl' | 'clientIdleTtl'>;

export interface PruneOptions {
  /** Rows per statement (default PRUNE_BATCH). */
  readonly batchSize?: number;
  /** Runs between two statements; default: one turn of the event loop. */
  readonly rest?: () => Promise<void>;
  /**
   * Also walk the whole grants table (default true): the safety net of the targeted check (see
   * above). The server's job walks at its first prune and then once a day (prune-schedule.ts).
   */
  readonly walkAllGrants?: boolean;
  /**
   * The most grant ids the targeted check holds (default MAX_TRACKED_GRANTS); a prune whose
   * deletes touch more grants walks them all instead.
   */
  readonly maxTrackedGrants?: number;
}

/** Lets timers, I/O and queued requests run before the next batch. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deletes every dead row (the store's upkeep: the maintenance store's); how many of each kind went. */
export async function prune(
  store: Upkeep,
  config: PruneConfig,
  now: number,
  options: PruneOptions = {},
): Promise<PruneCounts> {
  const pace: Pace = { rows: options.batchSize ?? PRUNE_BATCH, rest: options.rest ?? nextTurn };
  const dead = now - PRUNE_MARGIN;
  const losing = new LosingGrants(options.maxTrackedGrants);
  const expired = (table: ExpiringTable) =>
    inBatches(pace, async (rows) => {
      const grantIds = await store.deleteExpired(table, dead, rows);
      losing.add(grantIds);
      return { handled: grantIds.length, deleted: grantIds.length };
    });
  const walk = (table: WalkedTable, remove: (keys: string[]) => Promise<number>) =>
    walkDeleting(pace, (after, rows) => store.page(table, after, rows), remove);
  // Consumed codes stay until they expire: a replay inside the lifetime must still be recognised
  // (RFC 6749 §4.1.2) and revoke what the code issued.
  const codes = await expired('authorization_codes');
  // Rotated refresh tokens stay until their own expiry, so reuse is detected (RFC 9700 §4.14.2).
  const accessTokens = await expired('access_tokens');
  const refreshTokens = await expired('refresh_tokens');
  const grantsCreatedBefore = now - config.codeTtl - PRUNE_MARGIN;
  const grants =
    (options.walkAllGrants ?? true) || losing.overflowed
      ? await walkGrants(store, grantsCreatedBefore, pace)
      : await checkGrants(store, [...losing.ids], grantsCreatedBefore, pace);
  const sessions = await walk('sessions', (keys) =>
    store.deleteEndedSessions(keys, now, now - config.sessionAbsoluteTtl),
  );
  const rateLimits = await walk('rate_limits', (keys) => store.deleteEndedWindows(keys, now));
  const signinCounts = await walk('signin_throttle', (keys) => store.deleteForgottenSigninCounts(keys, now));
  // docs/configuration.md `CLIENT_IDLE_TTL`: a dynamic (or metadata-document) client with no grant
  // and no use for that long is abandoned; any grant left keeps it.
  const clients = await walk('clients', (keys) => store.deleteIdleClients(keys, now - config.clientIdleTtl));
  return {
    codes,
    accessTokens,
    refreshTokens,
    grants,
    sessions,
    rateLimits: rateLimits + signinCounts,
    clients,
  };
}
