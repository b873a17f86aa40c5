/**
 * Issue 49 §3: the issuer is never guessed for a server that listens beyond loopback. Such a start
 * stops at once (exit 2) with the line that fixes it, before any database is opened or any demo
 * password printed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('the issuer of a server listening beyond loopback', () => {
  for (const host of ['0.0.0.0', '10.9.9.9']) {
    it(`HOST=${host} without ISSUER exits 2 with the line naming ISSUER, creating nothing`, () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'schoolauth-issuer-'));
      try {
        const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
          cwd: ROOT,
          env: { PATH: process.env.PATH, HOST: host, PORT: '1', DATA_DIR: dataDir },
          encoding: 'utf8',
          timeout: 30000,
        });
        assert.equal(result.status, 2, result.stderr);
        assert.equal(
          result.stderr,
          `schoolauth: invalid configuration:\n  - ISSUER: required when HOST="${host}" listens beyond loopback; set ISSUER to the public origin clients use, e.g. ISSUER=https://auth.example.com\n`,
        );
        assert.equal(result.stdout, '', 'no demo sign-in printed');
        assert.deepEqual(readdirSync(dataDir), [], 'no database created');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});
