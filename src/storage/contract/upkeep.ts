/**
 * What the server's own jobs and probes ask of the database: the prune's deletes (src/ops/prune.ts
 * paces them in bounded statements, each its own transaction; these say which rows are dead),
 * the erasure of ended refresh successors, and the readiness probe.
 */
export type ExpiringTable = 'authorization_codes' | 'access_tokens' | 'refresh_tokens';

/** The tables walked by their text primary key. */
export type WalkedTable = 'sessions' | 'rate_limits' | 'signin_throttle' | 'grants' | 'clients';

export interface Upkeep {
  /**
   * Deletes up to `rows` rows of `table` that expired by `dead`; answers the grant of each row
   * deleted. PostgreSQL skips rows another transaction holds (docs/security.md "Lock order").
   */
  deleteExpired(table: ExpiringTable, dead: number, rows: number): Promise<string[]>;
  /** The next `rows` primary keys of `table` after `after`, in key order. */
  page(table: WalkedTable, after: string | undefined, rows: number): Promise<string[]>;
  /** Of `keys`, the sessions expired by `now` or created by `createdBefore` (their absolute lifetime). */
  deleteEndedSessions(keys: string[], now: number, createdBefore: number): Promise<number>;
  /** Of `keys`, the rate-limit windows over by `now`. */
  deleteEndedWindows(keys: string[], now: number): Promise<number>;
  /** Of `keys`, the sign-in counts forgotten by `now`. */
  deleteForgottenSigninCounts(keys: string[], now: number): Promise<number>;
  /**
   * Of `keys`, the self-registered and metadata-document clients with no grant left and no use
   * since `idleBefore` (docs/configuration.md `CLIENT_IDLE_TTL`); their consents go with them.
   */
  deleteIdleClients(keys: string[], idleBefore: number): Promise<number>;
  /** Of `keys`, the grants with no code and no token left, created by `createdBefore`. */
  deleteDeadGrants(keys: string[], createdBefore: number): Promise<number>;
  /**
   * The sealed successor pairs of refresh rotations made before `rotatedBefore` (their grace
   * window ended), erased; how many (docs/decisions.md "Refresh rotation").
   */
  eraseEndedSuccessors(rotatedBefore: number): Promise<number>;
  /** Whether the database answers: one trivial statement (GET /readyz). */
  ping(): Promise<void>;
}
