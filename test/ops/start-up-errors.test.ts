/**
 * Issue 24 §3: what goes wrong at start is said in one line naming the variable. HOST is
 * validated like every other variable (exit 2), and a database that cannot be reached or entered
 * names DATABASE_URL, with its password masked, and what to check (exit 1) — from the server and
 * the CLI alike.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort, PG_URL } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { serverExit } from '../helpers/server-process.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The CLI's answer to `account list` on `url`: exit 1 and one line naming the masked DATABASE_URL. */
async function refusedByCli(url: string): Promise<string> {
  const r = await cli(url, ['account', 'list']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /s3cret/, 'the password is masked');
  return r.stderr;
}

describe('start-up errors', () => {
  it('HOST=999.1.1.1 is refused at once, by name, with exit 2', () => {
    const started = Date.now();
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOST: '999.1.1.1' },
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /HOST="999.1.1.1": expected an IP address .* or a host name/);
    assert.doesNotMatch(result.stderr, /Invalid URL/);
    assert.ok(Date.now() - started < 30000);
  });

  it('DATABASE_URL with a mistyped scheme is echoed back, password masked (exit 2, server and CLI)', async () => {
    const url = 'postgress://bob:s3cret@db.example/schoolauth';
    const expected = `schoolauth: invalid configuration:\n  - DATABASE_URL="postgress://bob:*****@db.example/schoolauth": expected sqlite:<path> (or sqlite::memory:) or postgres://user@host:port/database (postgresql:// also works)\n`;
    const server = await serverExit({ DATABASE_URL: url });
    assert.equal(server.code, 2, server.output);
    assert.equal(server.output, expected);
    const r = await cli(url, ['account', 'list']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, expected);
  });

  it('a port in use says which one, that PORT picks another, and no raw EADDRINUSE (exit 1)', async () => {
    const taken = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'sa-port-'));
      const server = await serverExit({ PORT: String(port), DATA_DIR: dir });
      assert.equal(server.code, 1, server.output);
      assert.match(
        server.output,
        new RegExp(
          `^schoolauth: failed to start: port ${port} on 127\\.0\\.0\\.1 is already in use \\(another schoolauth server, or another program\\): stop that process, or set PORT to a free port \\(e\\.g\\. PORT=${port + 1}\\)$`,
          'm',
        ),
      );
      assert.doesNotMatch(server.output, /EADDRINUSE/);
    } finally {
      taken.close();
    }
  });

  it('connection refused: the server exits 1 naming DATABASE_URL with the password masked and what to check', async () => {
    const port = await freePort();
    const url = `postgres://postgres:s3cret@127.0.0.1:${port}/schoolauth`;
    const server = await serverExit({ DATABASE_URL: url });
    assert.equal(server.code, 1, server.output);
    assert.equal(
      server.output.trim(),
      `schoolauth: failed to start: cannot connect to DATABASE_URL=postgres://postgres:*****@127.0.0.1:${port}/schoolauth: connection refused at 127.0.0.1:${port}: check that PostgreSQL is running and listening on that host and port`,
    );
    assert.match(
      await refusedByCli(url),
      /DATABASE_URL=postgres:\/\/postgres:\*{5}@127\.0\.0\.1:\d+\/schoolauth: connection refused/,
    );
  });

  it('an unknown host is named', async () => {
    assert.match(
      await refusedByCli('postgres://postgres:s3cret@nonexistent.invalid:5432/schoolauth'),
      /cannot connect to DATABASE_URL=postgres:\/\/postgres:\*{5}@nonexistent\.invalid:5432\/schoolauth: unknown host nonexistent\.invalid: check the host name/,
    );
  });

  it('a missing database and an unknown user are named', {
    skip: PG_URL ? false : 'PostgreSQL not available',
  }, async () => {
    const base = new URL(PG_URL!);
    const missing = new URL(base);
    missing.pathname = '/schoolauth_no_such_database';
    missing.password = 's3cret';
    assert.match(
      await refusedByCli(missing.toString()),
      /database "schoolauth_no_such_database" does not exist: create it \(createdb schoolauth_no_such_database\) or correct the database name/,
    );
    const stranger = new URL(base);
    stranger.username = 'schoolauth_no_such_user';
    stranger.password = 's3cret';
    assert.match(
      await refusedByCli(stranger.toString()),
      /:\/\/schoolauth_no_such_user:\*{5}@.*: user "schoolauth_no_such_user" may not connect \(.*\): check the user name and the server's pg_hba.conf/,
    );
  });
});
