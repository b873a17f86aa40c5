import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openSuccessor, sealSuccessor } from '../../src/crypto/successor-seal.js';
import { mintSecret } from '../../src/crypto/tokens.js';

describe('sealed refresh successors', () => {
  const presented = mintSecret('refreshToken').value;
  const pair = {
    accessToken: mintSecret('accessToken').value,
    refreshToken: mintSecret('refreshToken').value,
  };

  it('opens with the presented token and shows neither token in the sealed text', () => {
    const sealed = sealSuccessor(presented, pair);
    assert.deepEqual(openSuccessor(presented, sealed), pair);
    for (const token of Object.values(pair)) assert.equal(sealed.includes(token.slice(-43)), false);
  });

  it('seals the same pair differently each time (random salt and IV)', () => {
    assert.notEqual(sealSuccessor(presented, pair), sealSuccessor(presented, pair));
  });

  it('opens nothing with another token, a changed byte or a truncated text', () => {
    const sealed = sealSuccessor(presented, pair);
    assert.equal(openSuccessor(mintSecret('refreshToken').value, sealed), undefined);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[raw.length - 1]! ^= 1;
    assert.equal(openSuccessor(presented, `v1.${raw.toString('base64url')}`), undefined);
    for (const broken of ['', 'v1.', 'v2.' + sealed.slice(3), sealed.slice(0, 40)]) {
      assert.equal(openSuccessor(presented, broken), undefined, JSON.stringify(broken));
    }
  });
});
