/** Sign-in sessions (docs/security.md "Sessions"), and the keys the server makes for itself. */
import type { Session } from '../schema.js';

export interface Sessions {
  start(session: Session): Promise<void>;
  /** The session by the SHA-256 of its cookie value. */
  find(idHash: string): Promise<Session | undefined>;
  /** Records activity: the idle window restarts, never past the absolute expiry. */
  touch(idHash: string, now: number, expiresAt: number): Promise<void>;
  end(idHash: string): Promise<void>;
}

/** The server's own keys, one row per name and database: every instance reads the same. */
export interface ServerSecrets {
  /** The 32-byte secret `name` (fresh CSPRNG output, made on first use; concurrent first uses agree). */
  get(name: 'device_cookie_hmac', now: number): Promise<Buffer>;
}
