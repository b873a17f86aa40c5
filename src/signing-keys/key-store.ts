/**
 * ID-token signing keys (crypto/signing-key.ts), kept in the database so every instance signs with
 * the same key and publishes the same JWKS. Each algorithm (RS256, ES256, EdDSA) has keys of its
 * own that live through the same states, rotated apart: a client's ID tokens are signed by the
 * current key of the algorithm it registered. A key's state follows from the times stored with
 * it, so every instance switches at the same moment without being told:
 *
 *   next      published, not signing yet: verifiers' cached copies of the JWKS catch up first
 *   current   signs ID tokens (and is published)
 *   previous  published until every ID token it signed has expired
 *   retired   neither
 */
import type { JWK } from 'jose';
import {
  DEFAULT_SIGNING_ALG,
  isSigningAlg,
  type KeyMaterial,
  newKeyMaterial,
  openSigningKey,
  SIGNING_ALGS,
  type SigningAlg,
  type SigningKey,
} from '../crypto/signing-key.js';
import type { SigningKeyRow } from '../storage/schema.js';
import type { Store } from '../storage/store.js';
export type KeyState = 'next' | 'current' | 'previous' | 'retired';

type KeyTimes = Pick<SigningKeyRow, 'activates_at' | 'retired_at' | 'retire_until'>;

/** A key's state at `now`, and when it changes next (null: never). */
export function keyState(key: KeyTimes, now: number): { state: KeyState; until: number | null } {
  if (now < key.activates_at) return { state: 'next', until: key.activates_at };
  if (key.retired_at === null || now < key.retired_at) return { state: 'current', until: key.retired_at };
  if (key.retire_until !== null && now < key.retire_until)
    return { state: 'previous', until: key.retire_until };
  return { state: 'retired', until: null };
}

/**
 * Seconds between an instance's reloads of the keys (src/ops/key-sync.ts): the longest an
 * instance may go without publishing a key another process added (a missed NOTIFY, or SQLite).
 */
export const KEY_RELOAD_INTERVAL = 5;

/** Seconds more for a reload's own query and for instances' clocks that disagree a little. */
export const KEY_RELOAD_SLACK = 5;

/**
 * Seconds a retired key stays published beyond the ID-token lifetime: covers instances whose
 * clocks run behind and an instance whose reload failed for a while, which may still sign with it.
 */
export const KEY_PROPAGATION_MARGIN = 120;

/**
 * Seconds from a rotation until the new key signs (pre-publication): every instance publishes it
 * within KEY_RELOAD_INTERVAL + KEY_RELOAD_SLACK, and a verifier's cached JWKS is at most
 * `jwksMaxAge` old after that. A verifier that meets the new `kid` has the key in its cached
 * copy, or fetches a JWKS that has it.
 */
export function prepublicationDelay(jwksMaxAge: number): number {
  return jwksMaxAge + KEY_RELOAD_INTERVAL + KEY_RELOAD_SLACK;
}

export interface KeyStoreOptions {
  readonly idTokenTtl: number;
  readonly keyEncryptionSecret: string | undefined;
  readonly now: () => number;
}

export interface RotationOptions extends KeyStoreOptions {
  /** The `max-age` JWKS is served with (JWKS_MAX_AGE). */
  readonly jwksMaxAge: number;
}

function keyRow(material: KeyMaterial, createdAt: number, activatesAt: number): SigningKeyRow {
  return {
    ...material,
    created_at: createdAt,
    activates_at: activatesAt,
    retired_at: null,
    retire_until: null,
  };
}

/** `keys rotate` while an earlier rotation's key has not started signing yet. */
export class RotationPending extends Error {
  constructor(readonly pending: SigningKeyRow) {
    super(`signing key ${pending.kid} is already waiting to sign`);
    this.name = 'RotationPending';
  }
}

export interface Rotation {
  /** The new key: published now, signing from `activates_at`. */
  readonly key: SigningKeyRow;
  /** Until when the keys it replaces stay published. */
  readonly previousUntil: number;
}

/**
 * Adds a `next` key of `alg` that signs after the pre-publication delay; the current key of that
 * algorithm signs until then and stays published until its last ID tokens have expired. Refuses
 * while a rotation of that algorithm is pending; the other algorithms' keys are left alone.
 */
export async function rotateKeys(
  store: Pick<Store, 'signingKeys'>,
  options: RotationOptions,
  alg: SigningAlg = DEFAULT_SIGNING_ALG,
): Promise<Rotation> {
  // Key generation is slow: before the clock is read (the delay counts from publication) and
  // outside the transaction.
  const material = await newKeyMaterial(alg, options.keyEncryptionSecret);
  const now = options.now();
  const activatesAt = now + prepublicationDelay(options.jwksMaxAge);
  const previousUntil = activatesAt + options.idTokenTtl + KEY_PROPAGATION_MARGIN;
  const key = keyRow(material, now, activatesAt);
  const { pending } = await store.signingKeys.rotate({ alg, key, now, previousUntil });
  if (pending) throw new RotationPending(pending);
  return { key, previousUntil };
}

interface LoadedKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly activatesAt: number;
  readonly retireUntil: number | null;
  readonly jwk: JWK;
  /** Set for keys that sign now or later (next, current). */
  readonly signing: SigningKey | undefined;
}

interface Snapshot {
  /** Published keys, the latest to start signing first. */
  readonly keys: readonly LoadedKey[];
  /** The JWKS document as UTF-8 bytes, and the first moment it must be built again. */
  jwks: { readonly body: Buffer; readonly kids: readonly string[]; readonly validUntil: number };
}

export class KeyStore {
  private snapshot: Snapshot | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Private keys already opened, by kid: a reload does not decrypt and parse them again. */
  private readonly opened = new Map<string, SigningKey>();

  private readonly store: Store;

  constructor(
    storage: { readonly store: Store },
    private readonly options: KeyStoreOptions,
  ) {
    this.store = storage.store;
  }

  /**
   * Loads the keys, creating the first one of each algorithm the database has none of (a new
   * database, or one from before ES256 and EdDSA). Reloads run one after another: one asked for
   * while another runs (a NOTIFY during a periodic reload) reads again, since the running one may
   * have read before the change.
   */
  async reload(): Promise<void> {
    const run = this.queue
      .catch(() => undefined)
      .then(async () => {
        this.snapshot = await this.load();
      });
    this.queue = run;
    await run;
  }

  private async load(): Promise<Snapshot> {
    const now = this.options.now();
    let rows = await this.store.signingKeys.listPublished(now);
    if (missingAlgs(rows).length > 0) {
      await this.createFirstKeys();
      rows = await this.store.signingKeys.listPublished(now);
    }
    // Two instances starting at once may both create a key: the newest signs, both are published.
    const keys = rows
      .map((row) => this.loadKey(row, now))
      .sort((a, b) => b.activatesAt - a.activatesAt || (a.kid < b.kid ? 1 : -1));
    const signers = new Set(keys.filter((k) => k.signing).map((k) => k.kid));
    for (const kid of this.opened.keys()) if (!signers.has(kid)) this.opened.delete(kid);
    return { keys, jwks: buildJwks(keys, now) };
  }

  private loadKey(row: SigningKeyRow, now: number): LoadedKey {
    const state = keyState(row, now).state;
    const alg = row.alg;
    if (!isSigningAlg(alg))
      throw new Error(`signing key ${row.kid} has an unknown alg ${JSON.stringify(alg)}`);
    let signing: SigningKey | undefined;
    if (state === 'next' || state === 'current') {
      signing = this.opened.get(row.kid);
      if (!signing) {
        signing = openSigningKey(row.kid, alg, row.private_jwk, this.options.keyEncryptionSecret);
        this.opened.set(row.kid, signing);
      }
    }
    return {
      kid: row.kid,
      alg,
      activatesAt: row.activates_at,
      retireUntil: row.retire_until,
      jwk: JSON.parse(row.public_jwk) as JWK,
      signing,
    };
  }

  /**
   * The first signing key of each algorithm that has none, created by exactly one of several
   * instances starting at once on one database: under a lock, and only if none has appeared
   * meanwhile.
   */
  private async createFirstKeys(): Promise<void> {
    await this.store.instances.alone('first-signing-key', async ({ store }) => {
      const missing = missingAlgs(await store.signingKeys.listPublished(this.options.now()));
      // A first key signs at once: no client can have been issued an ID token of an algorithm
      // that had no key, so no verifier holds a cached JWKS that lacks it and matters.
      const materials = await Promise.all(
        missing.map((alg) => newKeyMaterial(alg, this.options.keyEncryptionSecret)),
      );
      const at = this.options.now();
      for (const material of materials) await store.signingKeys.insert(keyRow(material, at, at));
    });
  }

  private current(): Snapshot {
    if (!this.snapshot) throw new Error('KeyStore used before reload()');
    return this.snapshot;
  }

  /**
   * The key of `alg` that signs now: the latest whose activation time has come (decided by the
   * clock, not a reload).
   */
  signingKey(alg: SigningAlg = DEFAULT_SIGNING_ALG): SigningKey {
    const now = this.options.now();
    const keys = this.current().keys.filter((k) => k.alg === alg);
    const active = keys.find((k) => k.signing && k.activatesAt <= now) ?? keys.findLast((k) => k.signing);
    return active!.signing!;
  }

  jwksBody(): Buffer {
    return this.publication().body;
  }

  publishedKids(): readonly string[] {
    return this.publication().kids;
  }

  /** The JWKS of this moment: a previous key leaves it when its time is up, without a reload. */
  private publication(): Snapshot['jwks'] {
    const snapshot = this.current();
    const now = this.options.now();
    if (now >= snapshot.jwks.validUntil) snapshot.jwks = buildJwks(snapshot.keys, now);
    return snapshot.jwks;
  }
}

/** The algorithms without a key that signs now or later (a `next` or `current` one). */
function missingAlgs(rows: readonly SigningKeyRow[]): SigningAlg[] {
  return SIGNING_ALGS.filter((alg) => !rows.some((r) => r.alg === alg && r.retired_at === null));
}

function buildJwks(keys: readonly LoadedKey[], now: number): Snapshot['jwks'] {
  const published = keys.filter((k) => k.retireUntil === null || k.retireUntil > now);
  const ends = published.map((k) => k.retireUntil).filter((t): t is number => t !== null);
  return {
    body: Buffer.from(JSON.stringify({ keys: published.map((k) => k.jwk) })),
    kids: published.map((k) => k.kid),
    validUntil: ends.length > 0 ? Math.min(...ends) : Number.POSITIVE_INFINITY,
  };
}
