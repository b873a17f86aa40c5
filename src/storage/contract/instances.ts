/**
 * What several instances on one database coordinate through it (docs/architecture.md "The
 * store"). On SQLite there is one server process per file (sqlite/server-lock.ts), so a job just
 * runs; on PostgreSQL, session-level advisory locks and NOTIFY.
 */
/** Where a watcher says that it lost or found its connection. */
export interface LogLike {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export type TryAlone<T> = { ran: true; result: T } | { ran: false };

/** `Scope`: what `alone`'s work is given, the database on the lock's connection (store.ts `Scope`). */
export interface Instances<Scope> {
  /**
   * Runs `job` when no other instance runs the job `name` (periodic jobs: the prune); answers
   * `{ ran: false }` at once when another does, and that instance's round counts for this one.
   */
  tryAlone<T>(name: string, job: () => Promise<T>): Promise<TryAlone<T>>;
  /**
   * Runs `work` once every other instance's `work` of the same name has ended, waiting for it:
   * "check, then create" steps of a first start (the first signing key, the demo school).
   * `work` must use the scope it is given for every query: on PostgreSQL that is the connection
   * holding the lock, and with a pool of one any other would never come.
   */
  alone<T>(name: string, work: (scope: Scope) => Promise<T>): Promise<T>;
  /** Tells every running instance that the signing keys changed (they also reload on a timer). */
  announceKeysChanged(): Promise<void>;
  /**
   * Calls `onChange` when another instance announces a change of the keys, and once each time
   * it starts hearing announcements (anything announced while it was not); none on SQLite.
   */
  watchKeys(onChange: () => void, log: LogLike): { stop(): Promise<void> };
}
