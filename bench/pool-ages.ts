/**
 * How old a pool's leftovers are. Both servers keep a code 600 s (CODE_TTL in
 * bench/targets/schoolauth.ts; node-oidc-provider's `ttl`), and a run takes the newest values
 * first, so what a run leaves are the oldest. With 60-second runs a pool is minted for minutes,
 * and a run that used the previous run's leftovers answered thousands of 400s (expired codes).
 * So a code pool's leftovers are dropped before it is topped up once the oldest of them is older
 * than MAX_AGE_MS: half the lifetime, so a code taken from a fresh top-up still has minutes left.
 */
export const MAX_AGE_MS = 300_000;

export class PoolAges<K extends string> {
  /** When the oldest value still in each pool was minted. */
  private readonly oldest = new Map<K, number>();

  /** @param aging the pools whose values expire (the codes); the others never count as stale. */
  constructor(private readonly aging: ReadonlySet<K>) {}

  /** A top-up of `kind` begins at `now`: the pool's oldest value is this old unless older ones are left. */
  minting(kind: K, now: number): void {
    if (this.aging.has(kind) && !this.oldest.has(kind)) this.oldest.set(kind, now);
  }

  /**
   * Whether the `length` values left in `kind` must be dropped; true forgets their age, as does
   * an empty pool (the caller then drops them or has none).
   */
  stale(kind: K, length: number, now: number): boolean {
    const since = this.oldest.get(kind);
    if (length === 0 || since === undefined) {
      this.oldest.delete(kind);
      return false;
    }
    if (now - since <= MAX_AGE_MS) return false;
    this.oldest.delete(kind);
    return true;
  }
}
