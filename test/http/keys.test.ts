/**
 * Signing key rotation with pre-publication (issue 24.5): a rotated-in key is published at once
 * and signs only after every cached JWKS has had time to expire; the key it replaces stays
 * published until its last ID tokens have expired. Time moves with the test clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { type Kysely, Migrator } from 'kysely';
import { newKeyMaterial, SIGNING_ALGS } from '../../src/crypto/signing-key.js';
import {
  KEY_PROPAGATION_MARGIN,
  KEY_RELOAD_INTERVAL,
  KEY_RELOAD_SLACK,
  KeyStore,
  keyState,
  prepublicationDelay,
  RotationPending,
  rotateKeys,
} from '../../src/signing-keys/key-store.js';
import { type DialectName, openStorage, type Storage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { migrations } from '../../src/storage/migrations/index.js';
import type { Account } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, dropSchema, newSchemaName, PG_URL, type TestApp } from '../helpers/app.js';
import { createPerson, type RegisteredClient, register, tokensFor } from '../helpers/oauth.js';

// Each algorithm's keys rotate on their own, with the same pre-publication (crypto/signing-key.ts).
for (const [dialect, alg] of DIALECTS.flatMap((d) => SIGNING_ALGS.map((a) => [d, a] as const))) {
  describe(`signing key rotation, ${alg} [${dialect}]`, () => {
    let t: TestApp;
    let client: RegisteredClient;
    let person: Account;
    before(async () => {
      t = await createTestApp(dialect);
      // Seconds count here: only the test moves the clock.
      t.clock.freeze();
      client = await register(t, { id_token_signed_response_alg: alg });
      person = await createPerson(t);
    });
    after(() => t.close());

    const options = () => ({
      idTokenTtl: t.config.idTokenTtl,
      keyEncryptionSecret: undefined,
      jwksMaxAge: t.config.jwksMaxAge,
      now: t.clock.now,
    });
    const jwks = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      return { set: res.json() as JSONWebKeySet, cacheControl: res.headers['cache-control'] };
    };
    const kids = async () => (await jwks()).set.keys.filter((k) => k.alg === alg).map((k) => k.kid!);
    const idToken = async () => (await tokensFor(t, client, person, { scopes: ['openid'] })).id_token!;

    it('serves JWKS with max-age JWKS_MAX_AGE (60 s by default)', async () => {
      assert.equal(t.config.jwksMaxAge, 60);
      assert.equal((await jwks()).cacheControl, 'public, max-age=60');
    });

    it('no ID token is signed with a kid that was not in JWKS for at least the cache time', async () => {
      const initial = (await kids())[0]!;
      const firstSeen = new Map<string, number>([[initial, Number.NEGATIVE_INFINITY]]);
      const cachedAt = new Map<string, JSONWebKeySet>();
      const rotatedAt = t.clock.now();
      const { key } = await rotateKeys(t.ctx.store, options(), alg);
      assert.equal(key.alg, alg);
      const learnsAt = KEY_RELOAD_INTERVAL + KEY_RELOAD_SLACK;
      assert.equal(key.activates_at, rotatedAt + t.config.jwksMaxAge + learnsAt);
      const signedWith: string[] = [];
      // Every second for two minutes; the instance learns of the key as late as it may (its
      // periodic reload, late by the slack; NOTIFY is sooner).
      for (let step = 0; step <= 120; step++) {
        const now = t.clock.now();
        if (now - rotatedAt >= learnsAt && !firstSeen.has(key.kid)) await t.ctx.keys.reload();
        const served = (await jwks()).set;
        for (const k of served.keys) {
          if (!firstSeen.has(k.kid!)) {
            firstSeen.set(k.kid!, now);
            cachedAt.set(k.kid!, served);
          }
        }
        const token = await idToken();
        const { kid, alg: signedAlg } = decodeProtectedHeader(token);
        assert.equal(signedAlg, alg);
        assert.ok(firstSeen.has(kid!), `${kid} signed before it was ever published`);
        assert.ok(
          now - firstSeen.get(kid!)! >= t.config.jwksMaxAge,
          `${kid} signs at +${now - rotatedAt} s, published only since +${firstSeen.get(kid!)! - rotatedAt} s`,
        );
        if (kid === key.kid && !signedWith.includes(kid)) {
          // A verifier still holding the copy cached when the key first appeared verifies it.
          const cached = createLocalJWKSet(cachedAt.get(kid)!);
          await jwtVerify(token, cached, { issuer: t.url, currentDate: new Date(now * 1000) });
        }
        signedWith.push(kid!);
        t.clock.advance(1);
      }
      assert.equal(signedWith[0], initial);
      assert.equal(signedWith.at(-1), key.kid, 'the new key signs once its time has come, without a reload');
      assert.deepEqual(
        (await kids()).sort(),
        [initial, key.kid].sort(),
        'the previous key is still published',
      );
    });

    it('the previous key leaves JWKS once every ID token it signed has expired, without a reload', async () => {
      const keys = await t.ctx.db.selectFrom('signing_keys').selectAll().where('alg', '=', alg).execute();
      const previous = keys.find((k) => k.retire_until !== null)!;
      const current = keys.find((k) => k.retire_until === null)!;
      assert.equal(
        previous.retire_until,
        current.activates_at + t.config.idTokenTtl + KEY_PROPAGATION_MARGIN,
      );
      // The last ID token the previous key signed was signed just before the switch.
      assert.ok(previous.retire_until! >= previous.retired_at! + t.config.idTokenTtl);
      t.clock.advance(previous.retire_until! - t.clock.now() - 1);
      assert.equal((await kids()).length, 2);
      t.clock.advance(1);
      assert.deepEqual(await kids(), [current.kid]);
    });

    it('a second rotation while one is pending is refused and changes nothing; other algorithms rotate on their own', async () => {
      const { key } = await rotateKeys(t.ctx.store, options(), alg);
      const before = await t.ctx.db.selectFrom('signing_keys').selectAll().orderBy('kid').execute();
      await assert.rejects(rotateKeys(t.ctx.store, options(), alg), (error: unknown) => {
        assert.ok(error instanceof RotationPending);
        assert.equal(error.pending.kid, key.kid);
        return true;
      });
      assert.deepEqual(
        await t.ctx.db.selectFrom('signing_keys').selectAll().orderBy('kid').execute(),
        before,
      );
      const other = SIGNING_ALGS.find((a) => a !== alg)!;
      const { key: otherKey } = await rotateKeys(t.ctx.store, options(), other);
      assert.equal(otherKey.alg, other);
      // Two rotations at once: exactly one wins.
      t.clock.advance(prepublicationDelay(t.config.jwksMaxAge));
      const outcomes = await Promise.allSettled([
        rotateKeys(t.ctx.store, options(), alg),
        rotateKeys(t.ctx.store, options(), alg),
      ]);
      assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
      t.clock.advance(prepublicationDelay(t.config.jwksMaxAge));
    });

    it('instances that loaded the same keys switch at the same moment, without a notification', async () => {
      const other = new KeyStore(t.ctx, { ...options() });
      const { key } = await rotateKeys(t.ctx.store, options(), alg);
      await Promise.all([t.ctx.keys.reload(), other.reload()]);
      t.clock.advance(key.activates_at - t.clock.now() - 1);
      assert.notEqual(t.ctx.keys.signingKey(alg).kid, key.kid);
      assert.notEqual(other.signingKey(alg).kid, key.kid);
      t.clock.advance(1);
      assert.equal(t.ctx.keys.signingKey(alg).kid, key.kid);
      assert.equal(other.signingKey(alg).kid, key.kid);
      assert.deepEqual(other.publishedKids(), t.ctx.keys.publishedKids());
    });

    it('no private key part is ever served', async () => {
      const body = JSON.stringify((await jwks()).set);
      for (const part of ['"d"', '"p"', '"q"', '"dp"', '"dq"', '"qi"']) assert.ok(!body.includes(part), part);
    });

    it('keys stored with KEY_ENCRYPTION_SECRET are encrypted at rest and still load', async () => {
      t.clock.advance(prepublicationDelay(t.config.jwksMaxAge));
      const secret = 'x'.repeat(40);
      const { key } = await rotateKeys(t.ctx.store, { ...options(), keyEncryptionSecret: secret }, alg);
      assert.ok(key.private_jwk.startsWith('enc:v1:'));
      assert.ok(!key.private_jwk.includes('"d"'));
      const store = new KeyStore(t.ctx, { ...options(), keyEncryptionSecret: secret });
      await store.reload();
      t.clock.advance(prepublicationDelay(t.config.jwksMaxAge));
      assert.equal(store.signingKey(alg).kid, key.kid);
    });
  });
}

describe('JWKS_MAX_AGE', () => {
  it('sets the JWKS max-age and, with it, how long a rotated-in key waits before it signs', async () => {
    const t = await createTestApp('sqlite', { env: { JWKS_MAX_AGE: '300' } });
    try {
      const res = await t.app.inject('/.well-known/jwks.json');
      assert.equal(res.headers['cache-control'], 'public, max-age=300');
      const { key } = await rotateKeys(t.ctx.store, {
        idTokenTtl: t.config.idTokenTtl,
        keyEncryptionSecret: undefined,
        jwksMaxAge: t.config.jwksMaxAge,
        now: t.clock.now,
      });
      assert.equal(key.activates_at - key.created_at, 300 + KEY_RELOAD_INTERVAL + KEY_RELOAD_SLACK);
    } finally {
      await t.close();
    }
  });
});

/** Runs `body` on a fresh database migrated up to `migration` (inclusive), then drops it. */
async function atMigration(
  dialect: DialectName,
  migration: string,
  body: (storage: Storage, schema: string | undefined) => Promise<void>,
): Promise<void> {
  const schema = dialect === 'postgres' ? newSchemaName() : undefined;
  const storage = await openStorage(dialect === 'postgres' ? PG_URL! : 'sqlite::memory:', { schema });
  try {
    const migrator = new Migrator({
      db: storage.db,
      provider: { getMigrations: async () => migrations },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    assert.equal((await migrator.migrateTo(migration)).error, undefined);
    await body(storage, schema);
  } finally {
    await storage.close();
    if (schema) await dropSchema(schema);
  }
}

for (const dialect of DIALECTS) {
  describe(`migration 0110-signing-key-activation [${dialect}]`, () => {
    it('a key made before pre-publication keeps signing: it has been active since it was made', async () => {
      await atMigration(dialect, '0040-refresh-successor', async (storage, schema) => {
        // biome-ignore lint/suspicious/noExplicitAny: the table as it was before 0110
        await (storage.db as Kysely<any>)
          .insertInto('signing_keys')
          .values({ kid: 'old', alg: 'RS256', public_jwk: '{}', private_jwk: '{}', created_at: 1000 })
          .execute();
        await migrateToLatest(storage.db, schema);
        const row = await storage.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
        assert.equal(row.activates_at, 1000);
        assert.equal(keyState(row, 2000).state, 'current');
      });
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`migration 0120-id-token-algorithms [${dialect}]`, () => {
    it('a database from before ES256 and EdDSA keeps its RS256 key and clients, and gains a key of each new algorithm at start', async () => {
      await atMigration(dialect, '0110-signing-key-activation', async (storage, schema) => {
        const old = await newKeyMaterial('RS256', undefined);
        // biome-ignore lint/suspicious/noExplicitAny: the tables as they were before 0120
        const before = storage.db as Kysely<any>;
        await before
          .insertInto('signing_keys')
          .values({ ...old, created_at: 1000, activates_at: 1000, retired_at: null, retire_until: null })
          .execute();
        await before
          .insertInto('clients')
          .values({
            id: 'dyn_old',
            kind: 'dynamic',
            name: 'Old CLI',
            application_type: 'native',
            redirect_uris: '["http://127.0.0.1:8080/cb"]',
            token_endpoint_auth_method: 'none',
            secret_hash: null,
            grant_types: '["authorization_code"]',
            response_types: '["code"]',
            metadata: '{}',
            disabled: 0,
            created_at: 1000,
            last_used_at: null,
          })
          .execute();
        await migrateToLatest(storage.db, schema);
        const client = await storage.db
          .selectFrom('clients')
          .selectAll()
          .where('id', '=', 'dyn_old')
          .executeTakeFirstOrThrow();
        assert.equal(client.id_token_signed_response_alg, 'RS256');

        const store = new KeyStore(storage, {
          idTokenTtl: 3600,
          keyEncryptionSecret: undefined,
          now: () => 2000,
        });
        await store.reload();
        const rows = await storage.db.selectFrom('signing_keys').selectAll().orderBy('alg').execute();
        assert.deepEqual(
          rows.map((r) => r.alg),
          ['ES256', 'EdDSA', 'RS256'],
        );
        assert.equal(store.signingKey('RS256').kid, old.kid, 'the RS256 key keeps signing');
        for (const row of rows) assert.equal(keyState(row, 2000).state, 'current');
        assert.deepEqual([...store.publishedKids()].sort(), rows.map((r) => r.kid).sort());
      });
    });
  });
}
