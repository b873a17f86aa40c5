/**
 * Rows kept, per database, for as long as nothing that may change them has run: each is stored
 * with the change stamp it was read at (change-stamps.ts) and answered only while no statement
 * that may touch its tables, no rollback and no other connection's commit has come since. So an
 * answer from the cache is the answer a read would give at that moment, not an older one: a
 * revocation or a disabled account counts from the next request on, as without the cache.
 *
 * SQLite only, where every write of this process passes through one driver and other processes'
 * commits show in PRAGMA data_version. On PostgreSQL, other instances write without this process
 * seeing it, so nothing is cached there.
 */
import { changedSince, snapshotStamp } from './driver.js';
import { NOT_NOW, type ReadNow } from './read-now.js';

/** A kept value, answered as it is: a hit allocates nothing. */
interface Entry<V> {
  readonly now: true;
  readonly value: V;
  readonly stamp: number;
}

export class ReadCache<V> {
  private readonly byDatabase = new WeakMap<object, Map<string, Entry<V>>>();

  /**
   * @param tables every table the cached rows are read from
   * @param capacity entries kept per database; when full it is emptied (cheaper than LRU order
   *   on every hit, and a full cache refills in one round of requests)
   */
  constructor(
    private readonly tables: readonly string[],
    private readonly capacity: number,
  ) {}

  /**
   * The row for `key`: from the cache while it is current, else from `readNow` (a synchronous
   * read; a found row is kept). NOT_NOW when no read can run now: the caller reads the usual way.
   */
  read(db: object, key: string, readNow: () => ReadNow<V | undefined>): ReadNow<V | undefined> {
    const stamp = snapshotStamp(db);
    if (stamp === undefined) return NOT_NOW;
    let entries = this.byDatabase.get(db);
    const hit = entries?.get(key);
    if (hit && !changedSince(db, hit.stamp, this.tables, false)) return hit;
    const read = readNow();
    if (!read.now || read.value === undefined) {
      if (hit) entries!.delete(key);
      return read;
    }
    if (!entries) {
      entries = new Map();
      this.byDatabase.set(db, entries);
    }
    if (entries.size >= this.capacity) entries.clear();
    // Shared by every request that presents the key: nobody may change it in place.
    const entry: Entry<V> = { now: true, value: Object.freeze(read.value), stamp };
    entries.set(key, entry);
    return entry;
  }
}
