/**
 * Keys of DPoP proofs already verified once by jose, by the proof header's exact base64url text
 * (typ, alg and jwk: the same for every proof of one client key). A client sends many proofs with
 * one key; importing the jwk and computing its thumbprint are each more work than the signature
 * check, and jose's check goes through WebCrypto, whose job and promise cost about as much again
 * as the signature (docs/performance.md "DPoP beside Bearer"). So a later proof with the same
 * header is checked with node:crypto's one-shot `verify` on the key jose imported, with the
 * parameters RFC 7518 gives its alg, and its header is not judged again: nothing here is hand-made
 * cryptography, and the header's checks (proof.ts checkHeader), the alg, the key and their match
 * were all passed by the header this text is.
 */
import { KeyObject, verify } from 'node:crypto';
import type { CryptoKey } from 'jose';
import type { DpopSigningAlg } from './algorithms.js';

/** RFC 7518 §3.3 (RS256: RSASSA-PKCS1-v1_5 with SHA-256), §3.4 (ES256: R‖S, 64 bytes); RFC 8037 §3.1 (EdDSA). */
const VERIFY_PARAMETERS: Record<DpopSigningAlg, { hash: string | null; dsaEncoding?: 'ieee-p1363' }> = {
  ES256: { hash: 'sha256', dsaEncoding: 'ieee-p1363' },
  EdDSA: { hash: null },
  Ed25519: { hash: null },
  RS256: { hash: 'sha256' },
};

export interface KnownKey {
  readonly jkt: string;
  /** Whether `proof` (whose header text is this key's) carries a valid signature of that key. */
  verify(proof: string): boolean;
}

const MAX_KNOWN_KEYS = 10_000;
const known = new Map<string, KnownKey>();

/** The header text of a compact JWS (what `known` is keyed by). */
export const headerTextOf = (proof: string): string => proof.slice(0, proof.indexOf('.'));

export function knownKey(headerText: string): KnownKey | undefined {
  return known.get(headerText);
}

/** Keeps the key jose verified a proof with, for later proofs with the same header text. */
export function rememberKey(headerText: string, alg: DpopSigningAlg, key: CryptoKey, jkt: string): void {
  const keyObject = KeyObject.from(key);
  const { hash, dsaEncoding } = VERIFY_PARAMETERS[alg];
  const options = dsaEncoding ? { key: keyObject, dsaEncoding } : keyObject;
  if (known.size >= MAX_KNOWN_KEYS) known.clear();
  known.set(headerText, {
    jkt,
    verify(proof) {
      const signatureAt = proof.lastIndexOf('.');
      const signingInput = Buffer.from(proof.slice(0, signatureAt), 'ascii');
      const signature = Buffer.from(proof.slice(signatureAt + 1), 'base64url');
      try {
        return verify(hash, signingInput, options, signature);
      } catch {
        // A signature of the wrong shape for the key (node throws for some): not valid.
        return false;
      }
    },
  });
}
