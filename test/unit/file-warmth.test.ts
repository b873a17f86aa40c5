import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openStorage } from '../../src/storage/connect.js';
import { WARM_NICE, type WarmPass, whileWarm } from '../../src/storage/sqlite/file-warmth.js';

const FILE_BYTES = 3 * (1 << 20) + 123; // three full reads and a short one

/** Bytes this process has read through read(2) and friends, its worker threads included (Linux). */
function bytesReadByProcess(): number | undefined {
  try {
    const match = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

describe('keeping a SQLite file warm while a bulk job runs', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'schoolauth-warmth-'));
    file = join(dir, 'data.db');
    writeFileSync(file, Buffer.alloc(FILE_BYTES, 7));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the whole file through before the job starts, on a thread at the lowest CPU priority', async () => {
    const passes: WarmPass[] = [];
    const readBefore = bytesReadByProcess();
    const answer = await whileWarm(
      file,
      async () => {
        assert.equal(passes.length, 1, 'a complete pass before the job');
        if (readBefore !== undefined) assert.ok(bytesReadByProcess()! - readBefore >= FILE_BYTES);
        return 'pruned';
      },
      { onPass: (pass) => passes.push(pass), periodMs: 60_000 },
    );
    assert.equal(answer, 'pruned');
    assert.equal(passes[0]!.bytes, FILE_BYTES);
    assert.ok(passes[0]!.ms > 0, `a pass over ${FILE_BYTES} bytes took ${passes[0]!.ms} ms`);
    if (process.platform === 'linux') assert.equal(passes[0]!.nice, WARM_NICE);
  });

  it('reads it through again every period while the job runs, and not once it has ended', async () => {
    let passes = 0;
    await whileWarm(file, () => sleep(250), { onPass: () => passes++, periodMs: 40 });
    assert.ok(passes >= 3, `${passes} passes over 250 ms at a 40 ms period`);
    const atEnd = passes;
    await sleep(150);
    assert.equal(passes, atEnd, 'no pass after the job ended');
  });

  it('leaves a file larger than maxBytes alone, and the job still runs', async () => {
    let passes = 0;
    const answer = await whileWarm(file, async () => 42, {
      onPass: () => passes++,
      maxBytes: FILE_BYTES - 1,
      periodMs: 10,
    });
    assert.deepEqual({ answer, passes }, { answer: 42, passes: 0 });
  });

  it('runs the job when the file is missing (warming is advisory)', async () => {
    let passes = 0;
    const answer = await whileWarm(join(dir, 'absent.db'), async () => 'ran', { onPass: () => passes++ });
    assert.deepEqual({ answer, passes }, { answer: 'ran', passes: 0 });
  });

  it("passes the job's failure on and stops warming", async () => {
    let passes = 0;
    await assert.rejects(
      whileWarm(
        file,
        async () => {
          await sleep(60);
          throw new Error('prune failed');
        },
        { onPass: () => passes++, periodMs: 20 },
      ),
      /prune failed/,
    );
    const atEnd = passes;
    await sleep(100);
    assert.equal(passes, atEnd);
  });

  it("the server's storage warms its database file; the CLI's and an in-memory one run the job alone", async () => {
    const dbFile = join(dir, 'server.db');
    const server = await openStorage(`sqlite:${dbFile}`, { checkpointInBackground: true });
    const cli = await openStorage(`sqlite:${join(dir, 'cli.db')}`);
    const memory = await openStorage('sqlite::memory:', { checkpointInBackground: true });
    try {
      await sql`create table t (x integer)`.execute(server.db);
      const seen: Record<string, WarmPass[]> = { server: [], cli: [], memory: [] };
      for (const [name, storage] of Object.entries({ server, cli, memory })) {
        assert.equal(
          await storage.whileWarm(
            async () => name,
            (pass) => seen[name]!.push(pass),
          ),
          name,
        );
      }
      assert.equal(seen.server!.length, 1);
      assert.equal(seen.server![0]!.bytes, statSync(dbFile).size);
      assert.deepEqual([seen.cli!.length, seen.memory!.length], [0, 0]);
    } finally {
      await Promise.all([server.close(), cli.close(), memory.close()]);
    }
  });
});
