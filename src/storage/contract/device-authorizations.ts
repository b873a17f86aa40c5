/**
 * The device authorization grant's requests (RFC 8628): created by the device authorization
 * endpoint, found and decided by a signed-in person through the user code, polled by the client
 * with the device code. Both codes are stored as SHA-256 hashes only (docs/storage.md
 * `device_authorizations`, docs/security.md "Device authorization grant"); the callers hash them.
 */
import type { DeviceAuthorization } from '../schema.js';

export interface NewDeviceAuthorization {
  readonly deviceCodeHash: string;
  readonly userCodeHash: string;
  readonly clientId: string;
  readonly scopes: string;
  readonly resource: string;
  readonly interval: number;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface DeviceDecision {
  readonly accountId: string;
  /** Space-separated scopes the person granted. */
  readonly scopes: string;
  /** When the person last entered their password (the ID token's auth_time). */
  readonly authTime: number;
}

/**
 * What one poll found (RFC 8628 §3.5), decided and written in one atomic step:
 * - `unknown`: no such device code, or another client's (invalid_grant);
 * - `spent`: tokens were issued for it already (invalid_grant);
 * - `expired`: past its expires_in (expired_token);
 * - `denied`: the person chose Deny (access_denied);
 * - `pending`: not decided yet (authorization_pending);
 * - `slow_down`: not decided, and polled sooner than its interval after the last poll; the
 *   interval is now 5 s longer, for this and every later poll;
 * - `approved`: approved, and spent by this poll: the caller issues the tokens, and no other
 *   poll, on any instance, gets this outcome for the same code.
 */
export type DevicePoll =
  | { readonly outcome: 'unknown' | 'spent' | 'expired' | 'denied' }
  | { readonly outcome: 'pending' | 'slow_down'; readonly interval: number }
  | { readonly outcome: 'approved'; readonly authorization: DeviceAuthorization };

export interface DeviceAuthorizations {
  /**
   * Stores a new request; false when its user code is taken by a request that has not expired
   * (the caller draws another code). An expired request holding the same user code gives it up.
   */
  create(request: NewDeviceAuthorization): Promise<boolean>;
  /** The request of this user code while it is pending (undecided) and unexpired. */
  findPendingByUserCode(userCodeHash: string, now: number): Promise<DeviceAuthorization | undefined>;
  /**
   * Approves the pending, unexpired request of this user code, for this person and scopes;
   * undefined when there is none (expired, decided before, or unknown).
   */
  approve(
    userCodeHash: string,
    decision: DeviceDecision,
    now: number,
  ): Promise<DeviceAuthorization | undefined>;
  /** Denies the pending, unexpired request of this user code; undefined when there is none. */
  deny(userCodeHash: string, accountId: string, now: number): Promise<DeviceAuthorization | undefined>;
  /** One poll of the client `clientId` with this device code (see DevicePoll). */
  poll(deviceCodeHash: string, clientId: string, now: number): Promise<DevicePoll>;
  /** Deletes up to `limit` requests that expired at or before `deadBefore`; answers how many went. */
  pruneExpired(deadBefore: number, limit: number): Promise<number>;
}
