/**
 * DPoP (RFC 9449) state every instance shares: the proofs already seen, so one is accepted once
 * across instances (§11.1), and the server nonces (§8, §9), stored only as hashes.
 */

export interface DpopProofs {
  /**
   * Records a proof by its key (the proof's key thumbprint and `jti`, hashed) until `expiresAt`;
   * true when this call recorded it (first sight, or the earlier record had expired by `now`),
   * false when it is recorded and live: a replay. One statement, atomic across instances: of any
   * number of concurrent calls with one key, exactly one answers true.
   */
  record(proofKey: string, expiresAt: number, now: number): Promise<boolean>;
  /** Deletes up to `limit` records expired by `now`; answers how many it deleted. */
  prune(now: number, limit: number): Promise<number>;
}

export interface DpopNonces {
  /** Publishes a nonce (its hash) as accepted by every instance until `expiresAt`. */
  add(nonceHash: string, expiresAt: number): Promise<void>;
  /** When a nonce of that hash, published by any instance and live at `now`, expires; undefined: none. */
  liveUntil(nonceHash: string, now: number): Promise<number | undefined>;
  /** Deletes up to `limit` nonces expired by `now`; answers how many it deleted. */
  prune(now: number, limit: number): Promise<number>;
}
