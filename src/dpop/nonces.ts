/**
 * Server nonces (RFC 9449 §8, §9), when DPOP_NONCES is on (docs/decisions.md "DPoP"). Each
 * instance hands out a fresh random nonce and replaces it every ROTATE seconds; a nonce is
 * accepted for 2 × ROTATE, by every instance: it is published in the store as its SHA-256 only,
 * so nothing at rest lets anyone make a nonce, and no instance needs a secret shared in clear.
 * An instance remembers the nonces it made or found live, so the store is read once per nonce of
 * another instance, not per request.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { DpopNonces } from '../storage/contract/dpop.js';

/** Seconds one nonce is handed out before the next replaces it. */
export const NONCE_ROTATE = 300;
/** Seconds a nonce is accepted from its making: the one handed out, and the one before it. */
export const NONCE_LIFETIME = 2 * NONCE_ROTATE;
/** Nonces remembered per instance at most (a few per instance live at once). */
const MAX_KNOWN = 10_000;

const hashOf = (nonce: string): string => createHash('sha256').update(nonce).digest('base64url');

export class ServerNonces {
  private handedOut: { value: string; until: number } | undefined;
  private minting: Promise<string> | undefined;
  /** Hash → expiry of nonces this instance made or found live in the store. */
  private readonly known = new Map<string, number>();

  constructor(private readonly store: DpopNonces) {}

  /** The nonce to send in `DPoP-Nonce` now; made (and published) when the last one is due. */
  current(now: number): Promise<string> {
    if (this.handedOut && now < this.handedOut.until) return Promise.resolve(this.handedOut.value);
    this.minting ??= this.mint(now).finally(() => {
      this.minting = undefined;
    });
    return this.minting;
  }

  private async mint(now: number): Promise<string> {
    const value = randomBytes(24).toString('base64url');
    const hash = hashOf(value);
    // Published before it is handed out: another instance may see it at once.
    await this.store.add(hash, now + NONCE_LIFETIME);
    this.remember(hash, now + NONCE_LIFETIME);
    this.handedOut = { value, until: now + NONCE_ROTATE };
    return value;
  }

  /** Whether a proof's nonce is one of any instance's, still live. */
  async accepts(nonce: string | undefined, now: number): Promise<boolean> {
    if (nonce === undefined || nonce.length === 0 || nonce.length > 128) return false;
    const hash = hashOf(nonce);
    const known = this.known.get(hash);
    if (known !== undefined) return known > now;
    const until = await this.store.liveUntil(hash, now);
    if (until === undefined) return false;
    this.remember(hash, until);
    return true;
  }

  private remember(hash: string, until: number): void {
    if (this.known.size >= MAX_KNOWN) this.known.clear();
    this.known.set(hash, until);
  }
}
