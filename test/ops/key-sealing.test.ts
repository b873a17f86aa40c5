/**
 * Issue 44, finding 6: setting KEY_ENCRYPTION_SECRET on a database whose private signing keys
 * were stored in clear encrypts them at the next start (server or CLI), once per key even when
 * several instances start at once, audited without the key. The reverse — encrypted keys and no
 * secret, or another one — is refused in one line, the rows untouched. Every check reads the
 * `signing_keys` rows themselves.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { bootstrap } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { isSealed, openPrivateKey, sealPrivateKey } from '../../src/crypto/key-encryption.js';
import { sealClearKeys } from '../../src/signing-keys/key-sealing.js';
import { openStorage } from '../../src/storage/connect.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS } from '../helpers/app.js';
import { type CliDatabase, cli, cliDatabase } from '../helpers/cli.js';
import { serverExit, startServer } from '../helpers/server-process.js';

const SECRET = 'a-key-encryption-secret-of-32-chars-or-more';
const OTHER = 'another-key-encryption-secret-32-chars-long';
const ENCRYPTED = 'signing keys are encrypted: set KEY_ENCRYPTION_SECRET to the secret used to store them';
const DIFFERENT =
  'a signing key could not be decrypted: KEY_ENCRYPTION_SECRET differs from the one used to store it';

const keyRows = (db: Kysely<Database>) =>
  db.selectFrom('signing_keys').select(['kid', 'alg', 'private_jwk']).orderBy('kid').execute();

const sealedAudits = async (db: Kysely<Database>) =>
  (await db.selectFrom('audit_events').select('detail').where('kind', '=', 'key.sealed').execute()).map(
    (row) => JSON.parse(row.detail) as { kid: string; alg: string },
  );

/** The private halves as stored in clear, by kid; fails when one is not in clear. */
async function clearKeys(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await keyRows(db);
  assert.ok(rows.length >= 3, 'a key of each algorithm');
  for (const row of rows) {
    assert.equal(isSealed(row.private_jwk), false, `${row.kid} starts in clear`);
    assert.ok((JSON.parse(row.private_jwk) as { d?: string }).d, `${row.kid} holds its private part`);
  }
  return new Map(rows.map((row) => [row.kid, row.private_jwk]));
}

for (const dialect of DIALECTS) {
  describe(`signing keys stored in clear, then KEY_ENCRYPTION_SECRET [${dialect}]`, () => {
    let database: CliDatabase;
    before(async () => {
      // `migrate` starts without the secret: the first keys are stored in clear; a rotation adds
      // a next key and turns the current ones into previous ones, which must be sealed too.
      database = await cliDatabase(dialect);
      const rotated = await cli(database.url, ['keys', 'rotate']);
      assert.equal(rotated.code, 0, rotated.stderr);
    });
    after(() => database.close());
    const db = () => database.storage.db;

    it('the first start with the secret encrypts every key stored in clear in place, audits each without the key, and says so', async () => {
      const before = await clearKeys(db());
      const started = await bootstrap(
        loadConfig({ DATABASE_URL: database.url, KEY_ENCRYPTION_SECRET: SECRET, LOG_LEVEL: 'silent' }),
      );
      try {
        assert.deepEqual(started.sealedKeys.map((k) => k.kid).sort(), [...before.keys()].sort());
        // The start signs with the keys it just sealed.
        assert.ok(before.has(started.keys.signingKey('RS256').kid));
      } finally {
        await started.storage.close();
      }
      const rows = await keyRows(db());
      assert.equal(rows.length, before.size);
      for (const row of rows) {
        const clear = before.get(row.kid)!;
        assert.ok(isSealed(row.private_jwk), `${row.kid} is sealed`);
        const { d } = JSON.parse(clear) as { d: string };
        assert.ok(!row.private_jwk.includes(d), `${row.kid}: no private part in clear`);
        assert.equal(openPrivateKey(row.private_jwk, SECRET), clear, `${row.kid}: the same key`);
      }
      const audits = await sealedAudits(db());
      assert.deepEqual(
        audits.map((a) => a.kid).sort(),
        [...before.keys()].sort(),
        'one key.sealed event per key',
      );
      for (const audit of audits) assert.deepEqual(Object.keys(audit).sort(), ['alg', 'kid']);

      // A later start (here the CLI) has nothing left to seal: the rows stay as they are.
      const again = await cli(database.url, ['keys', 'list'], '', { KEY_ENCRYPTION_SECRET: SECRET });
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /encrypted just now/);
      assert.deepEqual(await keyRows(db()), rows);
    });

    it('a start without the secret, or with another one, on encrypted keys is refused in one line and changes nothing', async () => {
      const rows = await keyRows(db());
      assert.ok(
        rows.every((row) => isSealed(row.private_jwk)),
        'sealed by the test before',
      );
      for (const [env, message] of [
        [{}, ENCRYPTED],
        [{ KEY_ENCRYPTION_SECRET: OTHER }, DIFFERENT],
      ] as const) {
        const r = await cli(database.url, ['keys', 'list'], '', env);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stderr, `schoolauth: ${message}\n`);
      }
      assert.deepEqual(await keyRows(db()), rows);
    });
  });

  // Several instances share a PostgreSQL database only (SQLite: one server per file).
  if (dialect !== 'postgres') continue;
  describe(`several instances starting at once with the secret [${dialect}]`, () => {
    let database: CliDatabase;
    before(async () => {
      database = await cliDatabase(dialect);
    });
    after(() => database.close());

    it('seal each key stored in clear exactly once (one write and one audit event per key)', async () => {
      const before = await clearKeys(database.storage.db);
      const instances = await Promise.all(Array.from({ length: 4 }, () => openStorage(database.url)));
      try {
        const sealed = await Promise.all(
          instances.map((s) => sealClearKeys(s.store, SECRET, () => Math.floor(Date.now() / 1000))),
        );
        const kids = sealed.flat().map((k) => k.kid);
        assert.deepEqual(kids.sort(), [...before.keys()].sort(), 'each key sealed by exactly one instance');
      } finally {
        await Promise.all(instances.map((s) => s.close()));
      }
      for (const row of await keyRows(database.storage.db))
        assert.equal(openPrivateKey(row.private_jwk, SECRET), before.get(row.kid));
      assert.equal((await sealedAudits(database.storage.db)).length, before.size);
    });
  });
}

describe('a server process and KEY_ENCRYPTION_SECRET', () => {
  it('a server started with the secret on keys stored in clear encrypts them and warns naming them; one started without it then refuses in one line', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sa-seal-'));
    const url = `sqlite:${join(dataDir, 'schoolauth.db')}`;
    const migrated = await cli(url, ['migrate']);
    assert.equal(migrated.code, 0, migrated.stderr);
    const server = await startServer({ DATABASE_URL: url, DATA_DIR: dataDir, KEY_ENCRYPTION_SECRET: SECRET });
    try {
      const until = Date.now() + 5000;
      while (!/encrypted just now/.test(server.output()) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      const line =
        /KEY_ENCRYPTION_SECRET is set: 3 private signing key\(s\) stored unencrypted were encrypted just now: [^"]*/.exec(
          server.output(),
        )?.[0];
      assert.ok(line, server.output());
      for (const alg of ['RS256', 'ES256', 'EdDSA']) assert.match(line, new RegExp(`\\w+ \\(${alg}\\)`));
      assert.match(line, /if one may have leaked, run `schoolauth keys rotate`/);
      assert.doesNotMatch(server.output(), /"d":/, 'no private key in the log');
    } finally {
      await server.stop();
    }
    const storage = await openStorage(url);
    try {
      assert.ok((await keyRows(storage.db)).every((row) => isSealed(row.private_jwk)));
    } finally {
      await storage.close();
    }
    const refused = await serverExit({ DATABASE_URL: url, DATA_DIR: dataDir });
    assert.equal(refused.code, 1, refused.output);
    assert.equal(refused.output.trim(), `schoolauth: failed to start: ${ENCRYPTED}`);
    const other = await serverExit({ DATABASE_URL: url, DATA_DIR: dataDir, KEY_ENCRYPTION_SECRET: OTHER });
    assert.equal(other.code, 1, other.output);
    assert.equal(other.output.trim(), `schoolauth: failed to start: ${DIFFERENT}`);
  });
});

describe('opening a sealed private key', () => {
  it('a truncated or damaged sealed value is the same one-line refusal as another secret, not a crypto error', () => {
    const sealed = sealPrivateKey('{"kty":"OKP"}', SECRET);
    for (const damaged of ['enc:v1:', 'enc:v1:AAAA', sealed.slice(0, 30), `${sealed.slice(0, -4)}AAAA`]) {
      assert.throws(() => openPrivateKey(damaged, SECRET), { message: DIFFERENT }, damaged);
    }
    assert.equal(openPrivateKey(sealed, SECRET), '{"kty":"OKP"}');
  });
});
