import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { openStorage } from '../../src/storage/connect.js';
import { framesInWal } from '../../src/storage/sqlite/wal-index.js';

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
  /**
   * Writes ~1 KB rows in back-to-back transactions until `bytes` went through; answers the WAL's
   * largest size seen. A volume, not a duration: on a loaded machine a time box wrote too little.
   */
  async function sustainedWrites(
    db: Db,
    wal: string,
    bytes: number,
  ): Promise<{ written: number; largestWal: number }> {
    await sql`create table rows (id integer primary key, body text not null)`.execute(db);
    const body = 'y'.repeat(1000);
    let written = 0;
    let largestWal = 0;
    while (written < bytes) {
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 8; i++) await trx.insertInto('rows').values({ body }).execute();
      });
      written += 8 * body.length;
      largestWal = Math.max(largestWal, statSync(wal).size);
    }
    return { written, largestWal };
  }

  for (const restarts of [true, false]) {
    const title = restarts
      ? 'restarts the WAL under sustained writes, so it stays below what went through it, and no write fails meanwhile'
      : 'without a checkpoint round, the same writes grow the WAL past what went through them (the test can fail)';
    it(title, async () => {
      const file = join(dir, `sustained-${restarts}.db`);
      const storage = await openStorage(`sqlite:${file}`, {
        checkpointInBackground: restarts ? { intervalMs: 20, restartPages: 100 } : { intervalMs: 3_600_000 },
      });
      const { written, largestWal } = await sustainedWrites(storage.db as Db, `${file}-wal`, 16_000_000);
      const rows = await sql<{ n: number }>`select count(*) as n from rows`.execute(storage.db as Db);
      await storage.close();
      assert.equal(rows.rows[0]!.n * 1000, written);
      // Each commit of 8 KB appends about 17 KB of frames, so a WAL that never starts over holds
      // about twice what went through it (33.7 MB of 16 MB, every run). Restarting at 100 pages
      // (400 KB), it peaks at what the writer appends while a worker round runs late: 1–1.3 MB
      // on an idle machine, 5.2 MB at a load average of 6 and 6.1 MB in a CI run. How late a
      // thread runs is the machine's, not the code's, so the bound is what went through the WAL:
      // twice the worst seen, and half of what the WAL holds without a round. (A PASSIVE round
      // alone, without the pause, is no control: on a loaded machine the writer is slow enough
      // that it rewinds the WAL by itself, 0.5× seen.)
      if (restarts) assert.ok(largestWal < written, `the WAL reached ${largestWal} of ${written} bytes`);
      else assert.ok(largestWal > written * 1.5, `the WAL stayed at ${largestWal} of ${written} bytes`);
    });
  }

  it('reads the frames in the WAL from its index, as a checkpoint reports them', async () => {
    const file = join(dir, 'frames.db');
    const storage = await openStorage(`sqlite:${file}`);
    await fill(storage.db as Db);
    const frames = framesInWal(file);
    const reported = await sql<{ log: number }>`pragma wal_checkpoint(PASSIVE)`.execute(storage.db as Db);
    await storage.close();
    assert.ok(frames > 500, `${frames} frames`);
    assert.equal(frames, reported.rows[0]!.log);
    assert.equal(framesInWal(join(dir, 'none.db')), 0);
  });

  it('a bulk writer awaiting checkpointsCaughtUp between statements keeps the WAL under the restart threshold', async () => {
    // No timed round (an hour apart): only the rounds the writer asks for copy the WAL. Without
    // them the WAL holds everything written (about twice the 4 MB here: 2000 frames).
    const file = join(dir, 'bulk.db');
    const restartPages = 200;
    const storage = await openStorage(`sqlite:${file}`, {
      checkpointInBackground: { intervalMs: 3_600_000, restartPages },
    });
    const db = storage.db as Db;
    await sql`create table rows (id integer primary key, body text not null)`.execute(db);
    const body = 'z'.repeat(1000);
    let largest = 0;
    for (let i = 0; i < 500; i++) {
      await db.transaction().execute(async (trx) => {
        for (let j = 0; j < 8; j++) await trx.insertInto('rows').values({ body }).execute();
      });
      largest = Math.max(largest, framesInWal(file));
      await storage.checkpointsCaughtUp();
    }
    await storage.close();
    // Half the threshold, then one transaction (about 4 frames) more before the writer waits.
    assert.ok(largest < restartPages, `the WAL reached ${largest} frames`);
  });
});
