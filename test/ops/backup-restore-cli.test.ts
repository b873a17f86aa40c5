/**
 * Issue 49 item 2: `restore` never swaps the database under a running server (it takes the lock
 * every server holds on its SQLite file), and `backup --to` never overwrites a file silently.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startServer } from '../helpers/server-process.js';

const createArgs = (email: string) => [
  'account',
  'create',
  '--email',
  email,
  '--name',
  'X',
  '--school',
  'maths',
  '--password-stdin',
];

describe('backup and restore beside a server', () => {
  it('restore --force refuses while a server holds the database, naming its pid and how to stop it, and changes nothing; once it stops, the restore runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-restore-lock-'));
    const file = join(dir, 'schoolauth.db');
    const url = `sqlite:${file}`;
    assert.equal((await cli(url, ['migrate'])).code, 0);
    assert.equal((await cli(url, ['school', 'create', '--slug', 'maths', '--name', 'Maths'])).code, 0);
    assert.equal((await cli(url, createArgs('early@example.com'), 'a long password 1\n')).code, 0);
    const backupFile = join(dir, 'backup.sqlite');
    assert.equal((await cli(url, ['backup', '--to', backupFile])).code, 0);
    // Created after the backup: what a restore under the server made vanish without a word.
    assert.equal((await cli(url, createArgs('late@example.com'), 'a long password 2\n')).code, 0);

    const server = await startServer({ DATA_DIR: dir });
    let pid: number | undefined;
    try {
      pid = server.child.pid!;
      const refused = await cli(url, ['restore', '--from', backupFile, '--force']);
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(
        refused.stderr,
        `schoolauth: a schoolauth server (pid ${pid}) is serving ${file}; stop it first (systemctl stop schoolauth, or kill ${pid}), then run the restore again and start it: a server left running would go on serving its old data over the restored file\n`,
      );
      assert.equal(refused.stdout, '');
      assert.match((await cli(url, ['account', 'list'])).stdout, /late@example\.com/, 'nothing was restored');
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200, 'the server goes on');
    } finally {
      await server.stop();
    }

    const restored = await cli(url, ['restore', '--from', backupFile, '--force']);
    assert.equal(restored.code, 0, restored.stderr);
    const list = (await cli(url, ['account', 'list'])).stdout;
    assert.match(list, /early@example\.com/);
    assert.doesNotMatch(list, /late@example\.com/, 'the backup is the database now');
  });

  it('backup --to an existing file is refused (exit 2) and leaves it as it was; --force replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-backup-force-'));
    const url = `sqlite:${join(dir, 'db.sqlite')}`;
    assert.equal((await cli(url, ['migrate'])).code, 0);
    const target = join(dir, 'monday.sqlite');
    writeFileSync(target, 'an earlier backup');
    const refused = await cli(url, ['backup', '--to', target]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      refused.stderr,
      `schoolauth: --to ${target} already exists; name a new file, or add --force to replace it\n`,
    );
    assert.equal(readFileSync(target, 'utf8'), 'an earlier backup', 'left as it was');
    const forced = await cli(url, ['backup', '--to', target, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /backed up .* to .*monday\.sqlite \(\d+ pages, integrity_check ok\)/);
    assert.equal(readFileSync(target).subarray(0, 15).toString(), 'SQLite format 3');
  });
});
