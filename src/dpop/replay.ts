/**
 * The record of proofs seen (RFC 9449 §11.1): a proof is accepted once, on every instance. The
 * key is the proof's key thumbprint with its `jti` (a `jti` is unique per key, §4.2), hashed to a
 * fixed size. The record lives until the proof's `iat` leaves the window: a proof older than
 * that is refused as stale, so it needs no record.
 */
import { createHash } from 'node:crypto';
import type { DpopProofs } from '../storage/contract/dpop.js';
import type { VerifiedProof } from './proof.js';

export function proofKey(proof: Pick<VerifiedProof, 'jkt' | 'jti'>): string {
  return createHash('sha256').update(`${proof.jkt}.${proof.jti}`).digest('base64url');
}

/** True when this is the first sight of the proof (it is now recorded), false for a replay. */
export function recordProof(
  store: DpopProofs,
  proof: VerifiedProof,
  window: number,
  now: number,
): Promise<boolean> {
  // One second more than the window: iat may be fractional, and `now` is whole seconds.
  return store.record(proofKey(proof), Math.ceil(proof.iat) + window + 1, now);
}
