import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  codeVerifierProblem,
  isValidCodeChallenge,
  isValidCodeVerifier,
  s256,
  verifyS256,
} from '../../src/oauth/pkce.js';

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE S256 (RFC 7636)', () => {
  it('computes the Appendix B challenge from the Appendix B verifier', () => {
    assert.equal(s256(VERIFIER), CHALLENGE);
    assert.equal(verifyS256(VERIFIER, CHALLENGE), true);
  });

  it('refuses a verifier that does not match the challenge', () => {
    assert.equal(verifyS256(`${VERIFIER.slice(0, -1)}l`, CHALLENGE), false);
    assert.equal(verifyS256('a'.repeat(43), CHALLENGE), false);
  });

  it('refuses, without throwing, a challenge of another length or with non-ASCII characters', () => {
    for (const challenge of ['', CHALLENGE.slice(0, -1), `${CHALLENGE}A`, `é${CHALLENGE.slice(1)}`]) {
      assert.equal(verifyS256(VERIFIER, challenge), false, JSON.stringify(challenge));
    }
  });

  it('refuses the challenge itself sent as a "plain" verifier', () => {
    assert.equal(verifyS256(CHALLENGE, CHALLENGE), false);
  });

  describe('code_verifier syntax (RFC 7636 §4.1)', () => {
    const verifiers: ReadonlyArray<[string, boolean]> = [
      [VERIFIER, true],
      ['a'.repeat(43), true],
      ['a'.repeat(128), true],
      ['A-._~z09'.repeat(6), true],
      ['a'.repeat(42), false],
      ['a'.repeat(129), false],
      [`${'a'.repeat(42)}+`, false],
      [`${'a'.repeat(42)}/`, false],
      [`${'a'.repeat(42)}=`, false],
      [`${'a'.repeat(42)} `, false],
      [`${'a'.repeat(42)}é`, false],
      ['', false],
    ];
    for (const [verifier, valid] of verifiers) {
      it(`verifier of ${verifier.length} chars ${JSON.stringify(verifier.slice(-3))} is ${valid ? 'valid' : 'invalid'} (§4.1)`, () => {
        assert.equal(isValidCodeVerifier(verifier), valid);
      });
    }
  });

  it('says what is wrong with a malformed verifier: its forbidden characters, else its length', () => {
    assert.equal(codeVerifierProblem(VERIFIER), undefined);
    const padded = Buffer.from('x'.repeat(32)).toString('base64');
    assert.match(
      codeVerifierProblem(`${padded.slice(0, 40)}+/${padded.slice(40)}`)!,
      /characters a verifier may not have \("\+", "\/", "="\)/,
    );
    assert.match(
      codeVerifierProblem('a'.repeat(42))!,
      /is 42 characters long; RFC 7636 §4\.1 allows 43 to 128/,
    );
    assert.match(codeVerifierProblem('a'.repeat(129))!, /is 129 characters long/);
    assert.match(codeVerifierProblem(`${'a'.repeat(43)} \u0000`)!, /\(" ", "\\u0000"\)/);
  });

  const challenges: ReadonlyArray<[string, boolean]> = [
    [CHALLENGE, true],
    [s256('x'.repeat(60)), true],
    [CHALLENGE.slice(0, 42), false],
    [`${CHALLENGE}A`, false],
    [`${CHALLENGE.slice(0, 42)}=`, false],
    [`${CHALLENGE.slice(0, 42)}+`, false],
    [`${CHALLENGE.slice(0, 42)}N`, false],
    ['', false],
  ];
  for (const [challenge, valid] of challenges) {
    it(`challenge ${JSON.stringify(challenge)} is ${valid ? 'valid' : 'invalid'}`, () => {
      assert.equal(isValidCodeChallenge(challenge), valid);
    });
  }

  it('every real S256 output is a valid challenge', () => {
    for (let i = 0; i < 200; i++) assert.ok(isValidCodeChallenge(s256(`verifier-${i}-${'v'.repeat(40)}`)));
  });
});
