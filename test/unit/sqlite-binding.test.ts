/**
 * The SQLite driver for the running Node.js (src/storage/sqlite/binding.ts, docs/decisions.md
 * "Node.js versions"): statements collected by V8 outside a JavaScript call do not abort the
 * process (better-sqlite3 12 on Node 24.19–24.21 does: nodejs/node#65446), and the one driver
 * binary loaded is better-sqlite3 13's where Node-API 10 exists, 12's elsewhere (Node 20).
 * Each case runs in a child process of this node, which the abort would kill.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { driverPackageFor, SQLITE_DRIVER } from '../../src/storage/sqlite/binding.js';

const root = new URL('../..', import.meta.url).pathname;

/** Runs `source` (an ES module) with this node from the checkout's root, with tsx when `tsx`. */
function runChild(source: string, env: Record<string, string> = {}, tsx = true) {
  const loader = tsx ? ['--import', 'tsx'] : [];
  return spawnSync(process.execPath, [...loader, '--input-type=module', '-e', source], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

// Statements prepared and dropped while the heap grows, with the event loop turning between
// rounds: V8 then collects them in its own tasks (incremental marking, the memory reducer), where
// no JavaScript context is entered, the case that aborts better-sqlite3 12 on Node 24.19–24.21.
// The driver is required by the path the server's worker threads take (SQLITE_DRIVER), in plain
// node: under tsx's module hooks the abort did not show.
const DROP_STATEMENTS = `
import { createRequire } from 'node:module';
const SQLite = createRequire(import.meta.url)(process.env.SQLITE_DRIVER);
const db = new SQLite(':memory:');
let junk = [];
let prepared = 0;
const until = Date.now() + Number(process.env.DROP_FOR_MS);
while (Date.now() < until) {
  for (let i = 0; i < 200; i++) {
    db.prepare('select ? + ' + prepared++).get(i);
    junk.push(new Array(100).fill(prepared));
  }
  if (junk.length > 20000) junk = [];
  await new Promise((resolve) => setImmediate(resolve));
}
await new Promise((resolve) => setTimeout(resolve, 1000));
db.close();
console.log(JSON.stringify({ prepared }));
`;

// The driver binaries this process has loaded once the server's storage opened a database file.
const LOADED_DRIVERS = `
import { openStorage } from './src/storage/connect.ts';
import { sql } from 'kysely';
const storage = await openStorage('sqlite:' + process.env.DB_FILE);
await sql\`select 1\`.execute(storage.db);
const loaded = process.report.getReport().sharedObjects.filter((file) => /better.sqlite3/.test(file));
await storage.close();
console.log(JSON.stringify(loaded));
`;

describe('the SQLite driver for this Node.js', () => {
  it('survives statements that V8 collects between event-loop turns (no abort of nodejs/node#65446)', () => {
    const child = runChild(DROP_STATEMENTS, { DROP_FOR_MS: '3000', SQLITE_DRIVER }, false);
    assert.equal(
      child.signal,
      null,
      `the process was killed by ${child.signal}: ${child.stderr.slice(0, 600)}`,
    );
    assert.equal(child.status, 0, child.stderr.slice(0, 600));
    const { prepared } = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
    assert.ok(prepared > 10_000, `only ${prepared} statements were prepared and dropped`);
  });

  it('loads better-sqlite3 13 where Node-API 10 exists and 12 elsewhere, never both', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schoolauth-binding-'));
    try {
      const child = runChild(LOADED_DRIVERS, { DB_FILE: join(dir, 'binding.db') });
      assert.equal(child.status, 0, child.stderr.slice(0, 600));
      const loaded: string[] = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '[]');
      const expected =
        Number(process.versions.napi) >= 10
          ? join(root, 'node_modules/better-sqlite3-13/prebuilds')
          : join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
      assert.equal(loaded.length, 1, `driver binaries loaded: ${loaded.join(', ')}`);
      assert.ok(loaded[0]?.startsWith(expected), `loaded ${loaded[0]}, expected under ${expected}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('picks the package by the Node-API version: 13 from Node-API 10 on (Node 22.14+, 24, 26)', () => {
    assert.equal(driverPackageFor('9'), 'better-sqlite3');
    assert.equal(driverPackageFor('10'), 'better-sqlite3-13');
    assert.equal(driverPackageFor('11'), 'better-sqlite3-13');
    assert.equal(driverPackageFor(undefined), 'better-sqlite3');
  });
});
