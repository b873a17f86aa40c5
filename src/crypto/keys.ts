/**
 * RS256 signing keys, kept in the database so every instance signs with the same key and
 * publishes the same JWKS. The newest unretired key signs; retired keys stay published until
 * everything they signed has expired.
 */
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { withExclusiveLock } from '../ops/instance-lock.js';
import type { Database, SigningKeyRow } from '../storage/schema.js';
import { insertKey, listPublishedKeys, retireOtherKeys } from '../storage/signing-keys.repository.js';
import { inTransaction } from '../storage/transaction.js';
import { openPrivateKey, sealPrivateKey } from './key-encryption.js';
import { randomId } from './tokens.js';

export const SIGNING_ALG = 'RS256' as const;

export interface SigningKey {
  readonly kid: string;
  readonly key: KeyObject;
}

interface Snapshot {
  readonly signing: SigningKey;
  /** The JWKS document as UTF-8 bytes, serialised once per key change. */
  readonly jwksBody: Buffer;
  readonly kids: readonly string[];
}

export interface KeyStoreOptions {
  readonly idTokenTtl: number;
  readonly keyEncryptionSecret: string | undefined;
  readonly now: () => number;
}

async function newKeyRow(options: KeyStoreOptions): Promise<SigningKeyRow> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, {
    modulusLength: 2048,
    extractable: true,
  });
  const kid = randomId();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  return {
    kid,
    alg: SIGNING_ALG,
    public_jwk: JSON.stringify(publicJwk),
    private_jwk: sealPrivateKey(JSON.stringify(privateJwk), options.keyEncryptionSecret),
    created_at: options.now(),
    retired_at: null,
    retire_until: null,
  };
}

/**
 * Seconds a retired key stays published beyond the ID-token lifetime: running instances may sign
 * with it until they notice the rotation (at once by NOTIFY, at worst at their next periodic
 * reload), and what they sign then must still verify until it expires.
 */
export const KEY_PROPAGATION_MARGIN = 120;

/** Creates a new signing key and retires the others (published until their ID tokens expire). */
export async function rotateKeys(db: Kysely<Database>, options: KeyStoreOptions): Promise<SigningKeyRow> {
  const row = await newKeyRow(options);
  await inTransaction(db, async (trx) => {
    await insertKey(trx, row);
    await retireOtherKeys(
      trx,
      row.kid,
      options.now(),
      options.now() + options.idTokenTtl + KEY_PROPAGATION_MARGIN,
    );
  });
  return row;
}

export class KeyStore {
  private snapshot: Snapshot | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: KeyStoreOptions,
  ) {}

  /**
   * Loads the keys, creating the first one when the database has none. Reloads run one after
   * another: one asked for while another runs (a NOTIFY during a periodic reload) reads again,
   * since the running one may have read before the change.
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
    let rows = await listPublishedKeys(this.db, this.options.now());
    if (!rows.some((r) => r.retired_at === null)) {
      await this.createFirstKey();
      rows = await listPublishedKeys(this.db, this.options.now());
    }
    const active = rows.find((r) => r.retired_at === null)!;
    const key = createPrivateKey({
      key: JSON.parse(openPrivateKey(active.private_jwk, this.options.keyEncryptionSecret)) as JsonWebKey,
      format: 'jwk',
    });
    const keys = rows.map((r) => JSON.parse(r.public_jwk) as JWK);
    return {
      signing: { kid: active.kid, key },
      jwksBody: Buffer.from(JSON.stringify({ keys })),
      kids: rows.map((r) => r.kid),
    };
  }

  /**
   * The first signing key, created by exactly one of several instances starting at once on one
   * database: under a lock, and only if none has appeared meanwhile.
   */
  private async createFirstKey(): Promise<void> {
    await withExclusiveLock(this.db, 'first-signing-key', async (db) => {
      const rows = await listPublishedKeys(db, this.options.now());
      if (!rows.some((r) => r.retired_at === null)) await insertKey(db, await newKeyRow(this.options));
    });
  }

  private current(): Snapshot {
    if (!this.snapshot) throw new Error('KeyStore used before reload()');
    return this.snapshot;
  }

  signingKey(): SigningKey {
    return this.current().signing;
  }

  jwksBody(): Buffer {
    return this.current().jwksBody;
  }

  publishedKids(): readonly string[] {
    return this.current().kids;
  }
}
