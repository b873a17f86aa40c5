/**
 * The prune's DPoP part: proof records and server nonces past their expiry
 * (docs/storage.md `dpop_proofs`, `dpop_nonces`), deleted through the store in bounded batches,
 * with a turn of the event loop between them so requests keep being served.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from '../storage/store.js';

const BATCH = 1000;

async function drain(step: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await step(BATCH);
    total += deleted;
    if (deleted < BATCH) return total;
    await nextTurn();
  }
}

export async function pruneDpop(
  store: Store,
  now: number,
): Promise<{ dpopProofs: number; dpopNonces: number }> {
  return {
    dpopProofs: await drain((limit) => store.dpopProofs.prune(now, limit)),
    dpopNonces: await drain((limit) => store.dpopNonces.prune(now, limit)),
  };
}
