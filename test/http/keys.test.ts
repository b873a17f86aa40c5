import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KEY_PROPAGATION_MARGIN, rotateKeys } from '../../src/crypto/keys.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';

for (const dialect of DIALECTS) {
  describe(`signing key rotation [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    const jwks = async () =>
      (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as {
        keys: Array<Record<string, string>>;
      };

    it('after a rotation JWKS shows the old and the new key, and the new one signs', async () => {
      const before = (await jwks()).keys.map((k) => k.kid);
      assert.equal(before.length, 1);
      const row = await rotateKeys(t.ctx.db, {
        idTokenTtl: t.config.idTokenTtl,
        keyEncryptionSecret: undefined,
        now: t.clock.now,
      });
      await t.ctx.keys.reload();
      const after = (await jwks()).keys.map((k) => k.kid);
      assert.deepEqual(after.sort(), [before[0]!, row.kid].sort());
      assert.equal(t.ctx.keys.signingKey().kid, row.kid);
    });

    it('a retired key leaves JWKS once everything it signed has expired', async () => {
      t.clock.advance(t.config.idTokenTtl + KEY_PROPAGATION_MARGIN + 1);
      await t.ctx.keys.reload();
      assert.equal((await jwks()).keys.length, 1);
    });

    it('no private key part is ever served', async () => {
      const body = JSON.stringify(await jwks());
      for (const part of ['"d"', '"p"', '"q"', '"dp"', '"dq"', '"qi"']) assert.ok(!body.includes(part), part);
    });

    it('keys stored with KEY_ENCRYPTION_SECRET are encrypted at rest and still load', async () => {
      const secret = 'x'.repeat(40);
      const row = await rotateKeys(t.ctx.db, {
        idTokenTtl: 60,
        keyEncryptionSecret: secret,
        now: t.clock.now,
      });
      assert.ok(row.private_jwk.startsWith('enc:v1:'));
      assert.ok(!row.private_jwk.includes('"d"'));
    });
  });
}
