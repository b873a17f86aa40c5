import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { openStorage } from '../../src/storage/connect.js';

// biome-ignore lint/suspicious/noExplicitAny: a scratch table outside the application schema
type Db = Kysely<any>;

/** ~2 MB (over 500 pages) through the WAL: fewer than the 1000 pages of SQLite's own automatic checkpoint. */
async function fill(db: Db): Promise<void> {
  await sql`create table blobs (id integer primary key, body text not null)`.execute(db);
  const body = 'x'.repeat(1000);
  for (let i = 0; i < 40; i++) {
    await db.transaction().execute(async (trx) => {
      for (let j = 0; j < 50; j++) await trx.insertInto('blobs').values({ body }).execute();
    });
  }
}

async function grows(file: string, from: number, withinMs: number): Promise<boolean> {
  for (let waited = 0; waited <= withinMs; waited += 50) {
    if (statSync(file).size > from) return true;
    await sleep(50);
  }
  return false;
}

describe('SQLite WAL checkpoints on a worker thread', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'schoolauth-wal-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies committed pages into the database file without the server connection checkpointing', async () => {
    const file = join(dir, 'background.db');
    const storage = await openStorage(`sqlite:${file}`, { checkpointInBackground: true });
    const before = statSync(file).size;
    await fill(storage.db as Db);
    assert.ok(await grows(file, before + 1_000_000, 3000), 'the database file did not receive the WAL pages');
    await storage.close();
  });

  it('leaves the pages in the WAL when the option is off (the CLI)', async () => {
    const file = join(dir, 'foreground.db');
    const storage = await openStorage(`sqlite:${file}`);
    const before = statSync(file).size;
    await fill(storage.db as Db);
    assert.equal(await grows(file, before + 1_000_000, 600), false);
    await storage.close();
  });
});
