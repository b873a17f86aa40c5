/**
 * The answer of a read tried synchronously (the SQLite driver's fast path, driver.ts): either
 * its value, read now, or "not now" — the connection is held by a transaction, or the database
 * is not SQLite — and the caller reads the usual way, as a promise. Every protected request reads
 * its bearer token this way; the promises around a read cost more than the read
 * (docs/performance.md 14, 22).
 */
export type ReadNow<T> = { readonly now: true; readonly value: T } | { readonly now: false };

/** "Not now": read as a promise instead. */
export const NOT_NOW: ReadNow<never> = Object.freeze({ now: false });

/** A value read now. */
export function readNow<T>(value: T): ReadNow<T> {
  return { now: true, value };
}
