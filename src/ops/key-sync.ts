/**
 * Keeps every instance's in-memory signing keys in step with the database without a restart.
 * `schoolauth keys rotate` announces the change (store `instances.announceKeysChanged`); every
 * instance watching reloads at once (PostgreSQL: LISTEN/NOTIFY). A reload every
 * KEY_RELOAD_INTERVAL seconds covers a missed announcement (a listener reconnecting) and SQLite
 * (the CLI is another process on the same file); the rotation's pre-publication delay counts that
 * interval in. When a new key starts signing and an old one leaves the JWKS is decided by the
 * times stored with the keys, on each instance's clock: no reload is needed at that moment.
 */
import { KEY_RELOAD_INTERVAL, type KeyStore } from '../signing-keys/key-store.js';
import type { LogLike } from '../storage/contract/instances.js';
import type { Store } from '../storage/store.js';

export interface KeySync {
  stop(): Promise<void>;
}

export function startKeySync(
  store: Store,
  keys: KeyStore,
  log: LogLike,
  intervalSeconds = KEY_RELOAD_INTERVAL,
): KeySync {
  const reload = (why: string) =>
    keys.reload().catch((error: unknown) => log.warn({ err: error, why }, 'signing key reload failed'));
  const timer = setInterval(() => void reload('poll'), intervalSeconds * 1000);
  timer.unref();
  const watch = store.instances.watchKeys(() => void reload('notify'), log);
  return {
    async stop() {
      clearInterval(timer);
      await watch.stop();
    },
  };
}
