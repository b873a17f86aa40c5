/**
 * Pruning: deletes rows nothing can use any more. Only the dead goes: expired codes, tokens,
 * sessions, rate-limit windows and forgotten sign-in counts; grants left with no code or token;
 * and self-registered clients abandoned by liveness (SPEC §5): no grant left and no use for
 * CLIENT_IDLE_TTL. Clients known from a metadata document go the same way (their document brings
 * them back at the next authorization request). Registered integrations are never pruned.
 *
 * Every delete goes in bounded batches, one statement (so one transaction) of at most
 * `batchSize` rows each, with a rest between them (a turn of the event loop, or as long as the
 * statement took for the server's job): a single DELETE of a
 * million expired rows held SQLite's write lock, and with it the server's event loop (the driver
 * is synchronous), for seconds; on PostgreSQL it held row locks and bloated one transaction.
 * Between batches requests run; what they write is judged by the same conditions at the next batch.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../storage/schema.js';

/**
 * Rows are deleted only when they died this long ago, so a request that judged a row alive a
 * moment before it expired (a code redeemed in its last second) never loses what it writes.
 */
export const PRUNE_MARGIN = 300;

/** Rows per delete statement: a few milliseconds of work, never a noticeable pause. */
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
  /** Rows deleted per statement (default PRUNE_BATCH). */
  readonly batchSize?: number;
  /**
   * Runs between two statements, told how long the last one took (ms); default: one turn of
   * the event loop. The server's job passes `restAsLongAsBusy`.
   */
  readonly rest?: (busyMs: number) => Promise<void>;
}

function deleted(result: { numDeletedRows: bigint }): number {
  return Number(result.numDeletedRows);
}

/** Lets timers, I/O and queued requests run before the next batch. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Pauses as long as the last statement took, so a prune never has more than half of the event
 * loop (and of the database's time): one turn alone was not enough when each statement of a
 * million-row prune took tens of milliseconds on SQLite — requests got one turn between two
 * statements, their rate fell to a twentieth and p99 rose 70-fold (docs/performance.md "Cost as
 * the database grows"). The prune takes about twice as long; it runs once per PRUNE_INTERVAL.
 */
export const restAsLongAsBusy = (busyMs: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, busyMs)));

type Rest = (busyMs: number) => Promise<void>;

/** Runs `batch` until it deletes fewer than `size` rows; answers the total. */
async function untilDone(size: number, rest: Rest, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const started = performance.now();
    const n = await batch();
    total += n;
    if (n < size) return total;
    await rest(performance.now() - started);
  }
}

/**
 * Walks a table by its text primary key, `size` keys a page, and deletes the dead among each
 * page (`remove` re-checks every condition). For conditions no index serves: each statement
 * reads one page of the key index, however many live rows the table holds.
 */
async function walkDeleting(
  size: number,
  rest: Rest,
  page: (after: string | undefined) => Promise<string[]>,
  remove: (keys: string[]) => Promise<number>,
): Promise<number> {
  let total = 0;
  let after: string | undefined;
  for (;;) {
    const started = performance.now();
    const keys = await page(after);
    if (keys.length > 0) total += await remove(keys);
    if (keys.length < size) return total;
    after = keys[keys.length - 1];
    await rest(performance.now() - started);
  }
}

/** The tables whose rows die at their own `expires_at`, and each one's primary key. */
const EXPIRING = {
  authorization_codes: 'code_hash',
  access_tokens: 'token_hash',
  refresh_tokens: 'token_hash',
} as const;

/** Deletes up to `size` rows of `table` that expired by `dead`, found through its expires_at index. */
async function deleteExpired(
  db: Kysely<Database>,
  table: keyof typeof EXPIRING,
  dead: number,
  size: number,
): Promise<number> {
  const key = EXPIRING[table];
  return deleted(
    await db
      .deleteFrom(table)
      .where(key, 'in', db.selectFrom(table).select(key).where('expires_at', '<=', dead).limit(size))
      .executeTakeFirst(),
  );
}

/** Deletes every dead row; returns how many of each kind went. */
export async function prune(
  db: Kysely<Database>,
  config: PruneConfig,
  now: number,
  options: PruneOptions = {},
): Promise<PruneCounts> {
  const size = options.batchSize ?? PRUNE_BATCH;
  const rest = options.rest ?? nextTurn;
  const dead = now - PRUNE_MARGIN;
  // Consumed codes stay until they expire: a replay inside the lifetime must still be recognised
  // (RFC 6749 §4.1.2) and revoke what the code issued.
  const codes = await untilDone(size, rest, () => deleteExpired(db, 'authorization_codes', dead, size));
  // Rotated refresh tokens stay until their own expiry, so reuse is detected (RFC 9700 §4.14.2).
  const accessTokens = await untilDone(size, rest, () => deleteExpired(db, 'access_tokens', dead, size));
  const refreshTokens = await untilDone(size, rest, () => deleteExpired(db, 'refresh_tokens', dead, size));
  const grants = await pruneGrants(db, now - config.codeTtl - PRUNE_MARGIN, size, rest);
  const sessions = await walkDeleting(
    size,
    rest,
    (after) => pageOf(db, 'sessions', 'id_hash', after, size),
    async (keys) =>
      deleted(
        await db
          .deleteFrom('sessions')
          .where('id_hash', 'in', keys)
          .where((eb) =>
            eb.or([eb('expires_at', '<=', now), eb('created_at', '<=', now - config.sessionAbsoluteTtl)]),
          )
          .executeTakeFirst(),
      ),
  );
  const rateLimits = await walkDeleting(
    size,
    rest,
    (after) => pageOf(db, 'rate_limits', 'key', after, size),
    async (keys) =>
      deleted(
        await db
          .deleteFrom('rate_limits')
          .where('key', 'in', keys)
          .where('reset_at', '<=', now)
          .executeTakeFirst(),
      ),
  );
  const signinCounts = await walkDeleting(
    size,
    rest,
    (after) => pageOf(db, 'signin_throttle', 'key', after, size),
    async (keys) =>
      deleted(
        await db
          .deleteFrom('signin_throttle')
          .where('key', 'in', keys)
          .where('forget_at', '<=', now)
          .executeTakeFirst(),
      ),
  );
  const clients = await pruneIdleClients(db, now - config.clientIdleTtl, size, rest);
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

/** The tables walked by key, and their text primary keys. */
type KeyedTable = 'sessions' | 'rate_limits' | 'signin_throttle' | 'grants' | 'clients';

/** The next `size` primary keys after `after`, in key order. */
async function pageOf(
  db: Kysely<Database>,
  table: KeyedTable,
  key: string,
  after: string | undefined,
  size: number,
): Promise<string[]> {
  // biome-ignore lint/suspicious/noExplicitAny: one text primary key, whichever table it belongs to
  const q = (db as Kysely<any>).selectFrom(table).select(key).orderBy(key).limit(size);
  const rows: Array<Record<string, string>> = await (after === undefined
    ? q
    : q.where(key, '>', after)
  ).execute();
  return rows.map((row) => row[key] as string);
}

/** A grant with no code and no token left can never issue anything again. */
async function pruneGrants(
  db: Kysely<Database>,
  createdBefore: number,
  size: number,
  rest: Rest,
): Promise<number> {
  return walkDeleting(
    size,
    rest,
    (after) => pageOf(db, 'grants', 'id', after, size),
    async (keys) =>
      deleted(
        await db
          .deleteFrom('grants')
          .where('id', 'in', keys)
          .where('created_at', '<=', createdBefore)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('authorization_codes')
                  .select('authorization_codes.grant_id')
                  .whereRef('authorization_codes.grant_id', '=', 'grants.id')
                  .unionAll(
                    selectFrom('access_tokens')
                      .select('access_tokens.grant_id')
                      .whereRef('access_tokens.grant_id', '=', 'grants.id'),
                  )
                  .unionAll(
                    selectFrom('refresh_tokens')
                      .select('refresh_tokens.grant_id')
                      .whereRef('refresh_tokens.grant_id', '=', 'grants.id'),
                  ),
              ),
            ),
          )
          .executeTakeFirst(),
      ),
  );
}

/**
 * SPEC §5: a dynamic (or metadata-document) client with no grant (so no code or token either) and no use since
 * `idleBefore` is abandoned. Any grant left — live, or revoked with tokens not yet expired —
 * keeps it. Its remembered consents go with it (ON DELETE CASCADE).
 */
async function pruneIdleClients(
  db: Kysely<Database>,
  idleBefore: number,
  size: number,
  rest: Rest,
): Promise<number> {
  return walkDeleting(
    size,
    rest,
    (after) => pageOf(db, 'clients', 'id', after, size),
    async (keys) =>
      deleted(
        await db
          .deleteFrom('clients')
          .where('id', 'in', keys)
          .where('kind', 'in', ['dynamic', 'metadata_document'])
          .where((eb) => eb(eb.fn.coalesce('last_used_at', 'created_at'), '<=', idleBefore))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('grants').select('grants.id').whereRef('grants.client_id', '=', 'clients.id'),
              ),
            ),
          )
          .executeTakeFirst(),
      ),
  );
}
