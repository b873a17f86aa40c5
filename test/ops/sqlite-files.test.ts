/**
 * Issue 19 §4 and issue 24 §3–4, with real server processes on SQLite files: files at rest are
 * private (DATA_DIR 0700; database, -wal, -shm 0600), a new database is announced, files others
 * can read and an unencrypted signing key on a public issuer are warned about, only DATA_DIR is
 * ever created as a directory, and a second server on the same file refuses to start.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli } from '../helpers/cli.js';
import { type ServerProcess, serverExit, startServer } from '../helpers/server-process.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Waits until the server has written a line matching `pattern` (logs are flushed every second). */
async function said(server: ServerProcess, pattern: RegExp, timeoutMs = 5000): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (!pattern.test(server.output())) {
    if (Date.now() > until) assert.fail(`no line matching ${pattern} in:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return server.output();
}

const warnings = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; path?: string; mode?: string })
    .filter((l) => l.level === 40);

describe('SQLite files of a server', () => {
  it('a first start creates DATA_DIR 0700 and the database, -wal and -shm 0600, says NEW DATABASE, and one server holds the file', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'sa-files-'));
    const dataDir = join(parent, 'data');
    const file = join(dataDir, 'schoolauth.db');
    const first = await startServer({ DATA_DIR: dataDir });
    try {
      // A write, so the write-ahead log and its index surely exist as SQLite made them.
      const registered = await fetch(`${first.url}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'files', redirect_uris: ['http://127.0.0.1:9/cb'] }),
      });
      assert.equal(registered.status, 201);
      assert.equal(mode(dataDir), '700', 'DATA_DIR');
      for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}.lock`])
        assert.equal(mode(path), '600', path);
      const output = await said(first, /NEW DATABASE/);
      const announced = warnings(output).filter((w) => w.msg.startsWith('NEW DATABASE'));
      assert.equal(announced.length, 1);
      assert.ok(announced[0]!.msg.includes(file), 'names the file');
      assert.deepEqual(
        warnings(output).filter((w) => !w.msg.startsWith('NEW DATABASE')),
        [],
        'nothing else to warn about',
      );

      const second = await serverExit({ DATA_DIR: dataDir });
      assert.equal(second.code, 1, second.output);
      assert.match(
        second.output,
        new RegExp(
          `another schoolauth server \\(pid ${first.child.pid}\\) is already serving the SQLite database ${file}`,
        ),
      );
      assert.equal(second.output.trim().split('\n').length, 1, 'one line');
      const listed = await cli(`sqlite:${file}`, ['account', 'list']);
      assert.equal(listed.code, 0, `the CLI still works alongside the server: ${listed.stderr}`);
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }

    // The lock died with the process that held it: the next server starts.
    const third = await startServer({ DATA_DIR: dataDir });
    try {
      assert.equal((await fetch(`${third.url}/readyz`)).status, 200);
      await new Promise((r) => setTimeout(r, 1500));
      assert.doesNotMatch(third.output(), /NEW DATABASE/, 'the database is not new any more');
    } finally {
      await third.stop();
    }
  });

  it('files other users can read, and a public issuer without KEY_ENCRYPTION_SECRET, are warned about at start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sa-open-'));
    const file = join(dataDir, 'schoolauth.db');
    const seeded = await cli(`sqlite:${file}`, ['migrate']);
    assert.equal(seeded.code, 0, seeded.stderr);
    assert.match(
      seeded.stderr,
      new RegExp(`NEW DATABASE: ${file} had no schoolauth tables`),
      'the CLI says so too',
    );
    assert.equal(mode(file), '600', 'the CLI creates the database private too');
    // As an older version (or a permissive umask) left them.
    chmodSync(dataDir, 0o755);
    chmodSync(file, 0o644);
    mkdirSync(join(dataDir, 'uploads'), { mode: 0o755 });
    writeFileSync(join(dataDir, 'uploads', 'upl_old'), 'old upload', { mode: 0o644 });
    const server = await startServer({ DATA_DIR: dataDir, ISSUER: 'https://auth.school.test' });
    try {
      await said(server, /KEY_ENCRYPTION_SECRET/);
      const byPath = new Map(warnings(server.output()).map((w) => [w.path, w]));
      for (const [path, expected] of [
        [dataDir, '0755'],
        [file, '0644'],
        // SQLite gives the log and its index the database file's mode.
        [`${file}-wal`, '0644'],
        [`${file}-shm`, '0644'],
        [join(dataDir, 'uploads'), '0755'],
      ] as const) {
        const warning = byPath.get(path);
        assert.ok(warning, `a warning for ${path}:\n${server.output()}`);
        assert.equal(warning.mode, expected);
        assert.match(
          warning.msg,
          new RegExp(`open to other local users \\(mode ${expected}\\): run \`chmod [67]00 `),
        );
      }
      assert.match(server.output(), /1 uploaded file\(s\) under .*uploads are open to other local users/);
      assert.match(
        server.output(),
        /KEY_ENCRYPTION_SECRET is not set: the private key that signs ID tokens for https:\/\/auth.school.test is stored unencrypted/,
      );
    } finally {
      await server.stop();
    }
  });

  it('a database path whose directory does not exist is refused (exit 2, DATABASE_URL named) and nothing is created', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'sa-typo-'));
    const url = `sqlite:${parent}/typo/dir/x.db`;
    const server = await serverExit({ DATABASE_URL: url });
    assert.equal(server.code, 2, server.output);
    assert.match(
      server.output,
      new RegExp(`DATABASE_URL="${url}": the directory ${parent}/typo/dir does not exist`),
    );
    const fromCli = await cli(url, ['account', 'list']);
    assert.equal(fromCli.code, 2);
    assert.match(
      fromCli.stderr,
      /no schoolauth database at .*x\.db: the file does not exist; the path comes from DATABASE_URL=/,
    );
    const migrate = await cli(url, ['migrate']);
    assert.equal(migrate.code, 2, 'migrate creates the file, never a directory');
    assert.match(migrate.stderr, /DATABASE_URL=.*does not exist/);
    assert.equal(existsSync(join(parent, 'typo')), false, 'no directory was made');
  });
});
