/**
 * Pruning of device authorization requests (RFC 8628), beside prune.ts: through the store, in
 * bounded statements, 300 s (PRUNE_MARGIN) after they expired, spent or not. An expired request
 * still answers expired_token until then; after, its device code is unknown (invalid_grant).
 */
import type { Store } from '../storage/store.js';
import { PRUNE_BATCH, PRUNE_MARGIN } from './prune.js';

/** Deletes every device authorization request dead by now; answers how many went. */
export async function pruneDeviceAuthorizations(
  store: Store,
  now: number,
  batch = PRUNE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await store.deviceAuthorizations.pruneExpired(now - PRUNE_MARGIN, batch);
    total += deleted;
    if (deleted < batch) return total;
    // One turn of the event loop between statements, as prune.ts rests.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
