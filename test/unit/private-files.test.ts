/**
 * Issue 19 §4: a SQLite database named by DATABASE_URL (not only the default under DATA_DIR) is
 * created 0600, and so are the -wal and -shm files SQLite makes beside it once written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStorage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('SQLite files at rest', () => {
  it('a database at a DATABASE_URL path, its -wal and -shm are 0600 after writes, whatever the umask', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-modes-'));
    const file = join(dir, 'custom.db');
    const umask = process.umask(0o022);
    try {
      const storage = await openStorage(`sqlite:${file}`);
      try {
        await migrateToLatest(storage.db);
        await storage.db
          .insertInto('schools')
          .values({
            id: 'sch_modes',
            slug: 'modes',
            name: 'Modes',
            description: '',
            settings: '{}',
            appearance: '{}',
            created_at: 0,
            updated_at: 0,
          })
          .execute();
        assert.equal(storage.file, file);
        for (const path of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(path), '600', path);
      } finally {
        await storage.close();
      }
    } finally {
      process.umask(umask);
    }
  });
});
