import assert from 'node:assert/strict';
import { hash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashSecret, mintSecret, TOKEN_PREFIX } from '../../src/crypto/tokens.js';

const sha256 = (value: string) => hash('sha256', value, 'base64url');

describe('opaque secrets and their stored keys', () => {
  it('a minted secret is its prefix, its time of issue in base 36, and 32 random bytes', () => {
    const before = Date.now();
    const { value } = mintSecret('accessToken');
    const after = Date.now();
    assert.match(value, /^sa_at_[0-9a-z]{9}[A-Za-z0-9_-]{43}$/);
    const issuedAt = Number.parseInt(value.slice(6, 15), 36);
    assert.ok(issuedAt >= before && issuedAt <= after, `${issuedAt} not within ${before}..${after}`);
    assert.equal(Buffer.from(value.slice(15), 'base64url').length, 32);
  });

  it('every kind gets its own prefix and the same shape', () => {
    for (const kind of Object.keys(TOKEN_PREFIX) as Array<keyof typeof TOKEN_PREFIX>) {
      const { value } = mintSecret(kind);
      assert.ok(value.startsWith(TOKEN_PREFIX[kind]));
      assert.match(value, /^sa_[a-z]{2}_[0-9a-z]{9}[A-Za-z0-9_-]{43}$/);
    }
  });

  it('the stored key is the stamp then the SHA-256 of the whole value, never the secret part', () => {
    const { value, hash: key } = mintSecret('refreshToken');
    assert.equal(key, value.slice(6, 15) + sha256(value));
    assert.equal(hashSecret(value), key);
    assert.ok(!key.includes(value.slice(15)));
  });

  it('keys of secrets issued later sort after earlier ones (new index entries go at the end)', () => {
    const issuedAt = (ms: number) =>
      `sa_ac_${ms.toString(36).padStart(9, '0')}${randomBytes(32).toString('base64url')}`;
    const early = hashSecret(issuedAt(Date.UTC(2026, 0, 1)));
    const later = hashSecret(issuedAt(Date.UTC(2026, 0, 1) + 1));
    assert.ok(early < later);
    // Without the stamp the keys would be in hash order: show the stamp decides.
    const keys = Array.from({ length: 50 }, (_, i) => hashSecret(issuedAt(1e12 + i)));
    assert.deepEqual([...keys].sort(), keys);
    assert.notDeepEqual(
      [...keys.map((k) => k.slice(9))].sort(),
      keys.map((k) => k.slice(9)),
    );
  });

  it('a value without a stamp (issued before stamps, or anything sent) is keyed by its SHA-256 alone', () => {
    const legacy = `sa_at_${Buffer.alloc(32, 7).toString('base64url')}`;
    assert.equal(hashSecret(legacy), sha256(legacy));
    for (const junk of [
      '',
      'sa_at_x',
      'sa_at_0mhx5c3k1',
      'SA_AT_0mhx5c3k1' + 'A'.repeat(43),
      `x${'a'.repeat(60)}`,
    ]) {
      assert.equal(hashSecret(junk), sha256(junk), JSON.stringify(junk));
    }
  });

  it('two secrets minted in the same millisecond share the stamp and nothing else', () => {
    const a = mintSecret('refreshToken');
    const b = mintSecret('refreshToken');
    assert.notEqual(a.value.slice(15), b.value.slice(15));
    assert.notEqual(a.hash, b.hash);
  });
});
