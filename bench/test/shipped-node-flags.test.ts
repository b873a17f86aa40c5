/**
 * The bench runs schoolauth as `npm start` does: the node flags of package.json's start script
 * (bench/targets/schoolauth.ts), so a flag the product ships is in every measured run.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SHIPPED_SERVER_ARGS, shippedNodeFlags } from '../targets/schoolauth.js';

function packageWithStart(start: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sa-flags-')), 'package.json');
  writeFileSync(file, JSON.stringify({ scripts: { start } }));
  return file;
}

describe('bench: the server started as npm start starts it', () => {
  it("takes the node flags from package.json's start script", () => {
    assert.deepEqual(shippedNodeFlags(packageWithStart('node --a=1 --b scripts/start.mjs')), [
      '--a=1',
      '--b',
    ]);
    assert.deepEqual(shippedNodeFlags(packageWithStart('node scripts/start.mjs')), []);
  });

  it('refuses a start script of another shape rather than measuring without its flags', () => {
    for (const start of [
      'tsx scripts/start.mjs',
      'node --a scripts/other.mjs',
      'node --a x scripts/start.mjs',
    ]) {
      assert.throws(
        () => shippedNodeFlags(packageWithStart(start)),
        /is not "node <flags> scripts\/start\.mjs"/,
        start,
      );
    }
  });

  it("runs dist/src/main.js behind this checkout's start flags", () => {
    const flags = shippedNodeFlags();
    assert.ok(flags.includes('--v8-pool-size=0'), flags.join(' '));
    assert.deepEqual(SHIPPED_SERVER_ARGS.slice(0, -1), flags);
    assert.match(SHIPPED_SERVER_ARGS.at(-1)!, /dist\/src\/main\.js$/);
  });
});
