/**
 * The token endpoint's writes (RFC 6749 §4.1.3, §6): spending a code or a refresh token and
 * writing what it issues, each all or nothing. Lock order (docs/security.md "Lock order"): every
 * operation that writes a grant's rows takes the grant first.
 */
import type { IssuanceWrites } from '../issuance-statements.repository.js';
import type { AuditEventRow, Grant } from '../schema.js';

export type { IssuanceWrites };

/**
 * `spent`: this call spent the code or token (false: another request spent it first, on any
 * instance, or the token is revoked: nothing was written). `authTime`: the grant's auth_time when
 * it was live and the tokens, the audit row and the client's last use (when due) were written;
 * undefined when nothing was issued.
 */
export interface IssuanceOutcome {
  readonly spent: boolean;
  readonly authTime: number | undefined;
}

export interface Issuance {
  /**
   * Redeems an authorization code once (RFC 6749 §4.1.2) and writes its token set: the grant
   * touched while live, the code consumed, the tokens, the audit row and the client's last use.
   */
  redeemCode(codeHash: string, grantId: string, writes: IssuanceWrites): Promise<IssuanceOutcome>;
  /**
   * Rotates a live refresh token once (docs/decisions.md "Refresh rotation"), keeping its sealed
   * successor for the grace window, and writes the successor pair as redeemCode writes its set.
   */
  rotateRefreshToken(
    tokenHash: string,
    grantId: string,
    sealedSuccessor: string,
    writes: IssuanceWrites,
  ): Promise<IssuanceOutcome>;
  /**
   * Writes a new grant with its first token set, the audit row and the client's last use, all
   * or nothing (the device authorization grant: the grant begins when its approval is spent,
   * RFC 8628 §3.5).
   */
  issueGrant(grant: Grant, writes: IssuanceWrites): Promise<void>;
  /**
   * Revokes a grant whose code was replayed or whose refresh token was reused (RFC 6749 §4.1.2,
   * RFC 9700 §4.14.2), with every token it issued, and writes the audit row with it.
   */
  revokeGrant(grantId: string, now: number, audit: AuditEventRow): Promise<void>;
}
