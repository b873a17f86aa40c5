/**
 * src/dpop/known-keys.ts: a proof whose key jose already verified is checked with node:crypto on
 * that key. The invariant: it answers what jose's compactVerify answers for the same proof, for
 * every algorithm and for every way a signature or a payload can be wrong.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, createSign } from 'node:crypto';
import { describe, it } from 'node:test';
import { compactVerify, importJWK } from 'jose';
import { DpopProblem, verifyProof } from '../../src/dpop/proof.js';
import { dpopKey, makeProof } from '../helpers/dpop.js';

const HTU = 'https://auth.example/api/oauth/token';
const expect = () => ({ method: 'POST', htu: HTU, now: Math.floor(Date.now() / 1000), window: 60 });

async function joseAccepts(
  proof: string,
  alg: string,
  jwk: Parameters<typeof importJWK>[0],
): Promise<boolean> {
  try {
    await compactVerify(proof, await importJWK(jwk, alg));
    return true;
  } catch {
    return false;
  }
}

async function weAccept(proof: string): Promise<boolean> {
  try {
    await verifyProof(proof, expect());
    return true;
  } catch (error) {
    assert.ok(error instanceof DpopProblem, String(error));
    return false;
  }
}

const flip = (text: string, at: number): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const next = alphabet[(alphabet.indexOf(text[at]!) + 1) % alphabet.length]!;
  return text.slice(0, at) + next + text.slice(at + 1);
};

describe('DPoP proofs of a known key (known-keys.ts)', () => {
  for (const alg of ['ES256', 'EdDSA', 'Ed25519', 'RS256']) {
    it(`judges ${alg} proofs of a known key as jose does: valid ones, and every altered signature, payload or length`, async () => {
      const key = await dpopKey(alg);
      const other = await dpopKey(alg);
      // The first proof makes the key known (jose verifies it).
      assert.equal(await weAccept(await makeProof(key, { htu: HTU })), true);
      const proof = await makeProof(key, { htu: HTU });
      const [header, payload, signature] = proof.split('.') as [string, string, string];
      const otherSignature = (await makeProof(other, { htu: HTU })).split('.')[2]!;
      const candidates = [
        proof,
        `${header}.${payload}.${otherSignature}`,
        `${header}.${payload}.${signature.slice(0, -4)}`,
        `${header}.${payload}.${signature}AAAA`,
        `${header}.${payload}.A`,
        `${header}.${flip(payload, 5)}.${signature}`,
        ...[0, 10, Math.floor(signature.length / 2), signature.length - 2].map(
          (at) => `${header}.${payload}.${flip(signature, at)}`,
        ),
      ];
      if (alg === 'ES256') {
        // The DER form of an ECDSA signature (RFC 7518 §3.4 wants R‖S): refused by both.
        const der = createSign('sha256')
          .update(`${header}.${payload}`)
          .sign(createPrivateKey({ key: key.privateJwk as never, format: 'jwk' }))
          .toString('base64url');
        candidates.push(`${header}.${payload}.${der}`);
      }
      for (const candidate of candidates) {
        assert.equal(await weAccept(candidate), await joseAccepts(candidate, alg, key.publicJwk), candidate);
      }
      assert.equal(await weAccept(proof), true);
    });
  }
});
