import type { Config } from './config.js';
import type { KeyStore } from './signing-keys/key-store.js';
import type { Storage } from './storage/connect.js';
import type { Store } from './storage/store.js';

/** What every route plugin is given: built once at start, shared by all requests. */
export interface AppContext {
  readonly config: Config;
  readonly storage: Storage;
  /** The database, through the store contract (storage/store.ts). */
  readonly store: Store;
  readonly keys: KeyStore;
  /** Current time in epoch seconds; tests replace it to move through lifetimes. */
  readonly now: () => number;
}

export const systemClock = (): number => Math.floor(Date.now() / 1000);
