/** What the cluster did during a grown-bench window (bench/cluster-activity.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { type ActivitySample, ClusterActivity, describeActivity } from '../cluster-activity.js';
import { PG_URL } from './helpers/postgres.js';

const sample = (
  at: Partial<Omit<ActivitySample, 'databases'>>,
  databases: Record<string, [number, number, number]>,
): ActivitySample => ({
  checkpoints: 0,
  checkpointsRequested: 0,
  buffersCheckpoint: 0,
  buffersBackend: 0,
  walBytes: 0,
  ...at,
  databases: new Map(
    Object.entries(databases).map(([label, [blocksRead, autovacuums, autoanalyzes]]) => [
      label,
      { blocksRead, autovacuums, autoanalyzes },
    ]),
  ),
});

describe('cluster activity in a grown-bench window', () => {
  it('says what changed between two samples: checkpoints, buffers, WAL, and per database reads and autovacuum', () => {
    const before = sample(
      { checkpoints: 4, checkpointsRequested: 1, buffersCheckpoint: 100, buffersBackend: 7, walBytes: 5e6 },
      { grown: [10, 2, 1], empty: [0, 5, 5] },
    );
    const after = sample(
      {
        checkpoints: 5,
        checkpointsRequested: 1,
        buffersCheckpoint: 10_333,
        buffersBackend: 9,
        walBytes: 101.4e6,
      },
      { grown: [22, 3, 1], empty: [0, 7, 5] },
    );
    assert.equal(
      describeActivity(before, after),
      'cluster: 1 checkpoint (0 requested), 10,233 buffers written by checkpoints and 2 by backends, ' +
        '96.4 MB of WAL; grown: 12 blocks read, 1 autovacuum, 0 autoanalyzes; ' +
        'empty: 0 blocks read, 2 autovacuums, 0 autoanalyzes',
    );
  });

  it('reads a checkpoint and the WAL written from a real cluster', {
    skip: !PG_URL && 'no PostgreSQL',
  }, async () => {
    const database = new URL(PG_URL!).pathname.slice(1) || 'postgres';
    const activity = await ClusterActivity.connect(PG_URL!, { measured: database });
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const before = await activity.sample();
      await client.query('create temporary table activity_probe as select generate_series(1, 1000) as n');
      await client.query('checkpoint');
      // The checkpointer reports its counters when a checkpoint ends; they may show a moment later.
      let after = await activity.sample();
      for (let i = 0; i < 50 && after.checkpoints === before.checkpoints; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = await activity.sample();
      }
      assert.ok(after.checkpoints > before.checkpoints, 'the checkpoint is counted');
      assert.ok(after.walBytes > before.walBytes, 'the WAL written is counted');
      assert.ok(after.databases.has('measured'));
      assert.match(
        describeActivity(before, after),
        /^cluster: \d+ checkpoints? .*; measured: \d+ blocks? read, /,
      );
    } finally {
      await client.end();
      await activity.close();
    }
  });
});
