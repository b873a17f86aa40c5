/**
 * A running instance publishes a key that another process rotated in, without a notification
 * (SQLite, or a missed NOTIFY), within KEY_RELOAD_INTERVAL: the bound the pre-publication delay
 * counts on (issue 24.5).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startKeySync } from '../../src/ops/key-sync.js';
import { KEY_RELOAD_INTERVAL, KeyStore } from '../../src/signing-keys/key-store.js';
import { openStorage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { cli } from '../helpers/cli.js';

const silent = { info: () => undefined, warn: () => undefined };

describe('key sync on SQLite', () => {
  it(`publishes a key the CLI rotated in from another connection within ${KEY_RELOAD_INTERVAL} s`, async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'sa-keysync-')), 'db.sqlite')}`;
    const storage = await openStorage(url);
    await migrateToLatest(storage.db);
    const now = () => Math.floor(Date.now() / 1000);
    const keys = new KeyStore(storage, { idTokenTtl: 3600, keyEncryptionSecret: undefined, now });
    await keys.reload();
    const sync = startKeySync(storage.store, keys, silent);
    try {
      const rotated = await cli(url, ['keys', 'rotate']);
      assert.equal(rotated.code, 0, rotated.stderr);
      const kid = /new signing key (\S+):/.exec(rotated.stdout)![1]!;
      const started = Date.now();
      while (!keys.publishedKids().includes(kid)) {
        assert.ok(
          Date.now() - started < (KEY_RELOAD_INTERVAL + 1) * 1000,
          'published by the periodic reload',
        );
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.notEqual(keys.signingKey().kid, kid, 'published, not signing yet');
    } finally {
      await sync.stop();
      await storage.close();
    }
  });
});
