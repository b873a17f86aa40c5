/** The signing keys kept in the database (docs/deploy.md "Signing key rotation"). */
import type { AuditEventRow, SigningKeyRow } from '../schema.js';

export interface KeyRotation {
  readonly alg: string;
  /** The new key, published now and signing from its `activates_at`. */
  readonly key: SigningKeyRow;
  readonly now: number;
  /** Until when the keys it replaces stay published. */
  readonly previousUntil: number;
}

export interface SigningKeys {
  /** Keys still published: not retired, or retired but within their retire window; latest first. */
  listPublished(now: number): Promise<SigningKeyRow[]>;
  /** Every key, latest first. */
  listAll(): Promise<SigningKeyRow[]>;
  insert(row: SigningKeyRow): Promise<void>;
  /** A key of `alg` published but not signing yet, if any. */
  findPending(alg: string, now: number): Promise<SigningKeyRow | undefined>;
  /**
   * Retires the keys of `alg` signing now (they sign until the new key activates and stay
   * published until `previousUntil`) and inserts the new key, in one transaction; answers the
   * pending key instead, and changes nothing, when one of that algorithm waits to sign. Of two
   * rotations at once, the second finds the first's key pending.
   */
  rotate(rotation: KeyRotation): Promise<{ pending?: SigningKeyRow }>;
  /**
   * Replaces a private half stored in clear by its sealed form, and writes the audit row with it,
   * only if the row still holds exactly that clear value: of several instances sealing at once,
   * one write lands. Answers whether this call sealed it.
   */
  sealIfClear(kid: string, clear: string, sealed: string, audit: AuditEventRow): Promise<boolean>;
}
