/** A transaction that keeps the database connection until the test lets it go. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';

export interface Held {
  /** Lets the transaction commit; resolves once it has. */
  release(): Promise<void>;
}

/**
 * Begins a transaction, runs `first` in it, and holds it open; answers once `first` has finished
 * (so the locks it takes are held: on PostgreSQL that is a round trip, more than a turn of the event
 * loop on a busy machine) and a turn of the event loop later.
 */
// biome-ignore lint/suspicious/noExplicitAny: tests hold scratch schemas as well as the application's
export async function holdTransaction<D extends Kysely<any>>(
  db: D,
  // biome-ignore lint/suspicious/noExplicitAny: as above
  first: (trx: Transaction<any>) => Promise<unknown>,
): Promise<Held> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held!: () => void;
  const firstDone = new Promise<void>((resolve) => {
    held = resolve;
  });
  const holding = db.transaction().execute(async (trx) => {
    await first(trx);
    held();
    await gate;
  });
  await Promise.race([firstDone, holding]);
  await nextTurn();
  return {
    release: () => {
      open();
      return holding;
    },
  };
}
