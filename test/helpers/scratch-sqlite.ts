/**
 * A SQLite database of the server's own storage with a scratch table `items`, outside the
 * application schema, for tests of the driver itself; and a second, read-only connection that
 * sees only what is committed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import SQLite from '../../src/storage/sqlite/binding.js';

// biome-ignore lint/suspicious/noExplicitAny: the scratch table is not part of Database
export type ScratchDb = Kysely<any>;

export interface ScratchSqlite {
  /** The database file. */
  readonly path: string;
  readonly storage: Storage;
  readonly db: ScratchDb;
  /** How many committed rows of `items` have this name (read on the second connection). */
  committed(name: string): number;
  /** Every name in `items`, in order, as the server's connection reads them. */
  names(): Promise<string[]>;
  /** Empties `items`. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export async function openScratchSqlite(prefix: string): Promise<ScratchSqlite> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'scratch.db');
  const storage = await openStorage(`sqlite:${path}`);
  const db = storage.db as ScratchDb;
  await sql`create table items (name text primary key, parent text references items(name))`.execute(db);
  const observer = new SQLite(path, { readonly: true });
  const count = observer.prepare('select count(*) as n from items where name = ?');
  return {
    path,
    storage,
    db,
    committed: (name) => (count.get(name) as { n: number }).n,
    names: async () =>
      (await db.selectFrom('items').select('name').orderBy('name').execute()).map((r) => r.name),
    clear: async () => {
      await db.deleteFrom('items').execute();
    },
    close: async () => {
      observer.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
