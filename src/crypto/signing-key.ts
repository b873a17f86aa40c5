/**
 * The pure half of ID-token signing keys: a fresh key pair of one of the three ID-token
 * algorithms as JWKs (the private half sealed with key-encryption.ts), and a sealed private JWK
 * opened into a KeyObject. Where keys are kept, when they sign and how they rotate is
 * src/signing-keys/key-store.ts; crypto imports no storage.
 */
import { createPrivateKey, generateKeyPair, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { openPrivateKey, sealPrivateKey } from './key-encryption.js';
import { randomId } from './tokens.js';

/**
 * The ID-token algorithms (RFC 7518 §3.3 RS256, §3.4 ES256 on P-256; RFC 8037 §3.1 EdDSA on
 * Ed25519), RS256 first: it is the default, and OIDC Discovery §3 requires it be supported.
 */
export const SIGNING_ALGS = ['RS256', 'ES256', 'EdDSA'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** OIDC Core §2 / OIDC Dynamic Registration §2: the ID-token algorithm of a client that names none. */
export const DEFAULT_SIGNING_ALG: SigningAlg = 'RS256';

export function isSigningAlg(value: unknown): value is SigningAlg {
  return (SIGNING_ALGS as readonly unknown[]).includes(value);
}

export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly key: KeyObject;
}

/** A key pair as stored: the public JWK and the sealed private JWK, both JSON text. */
export interface KeyMaterial {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly public_jwk: string;
  readonly private_jwk: string;
}

const generate = promisify(generateKeyPair);

function newKeyPair(alg: SigningAlg): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  switch (alg) {
    case 'RS256':
      return generate('rsa', { modulusLength: 2048 });
    case 'ES256':
      return generate('ec', { namedCurve: 'P-256' });
    case 'EdDSA':
      return generate('ed25519');
  }
}

/**
 * A fresh key pair (RSA is slow: up to seconds on a busy machine), the private half sealed. The
 * JWKs carry `kty` and, for EC and OKP keys, `crv` as node:crypto exports them (RFC 7518 §6.2,
 * RFC 8037 §2), plus `kid` and `alg` (and `use` on the public one).
 */
export async function newKeyMaterial(
  alg: SigningAlg,
  keyEncryptionSecret: string | undefined,
): Promise<KeyMaterial> {
  const { publicKey, privateKey } = await newKeyPair(alg);
  const kid = randomId();
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
  const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid, alg };
  return {
    kid,
    alg,
    public_jwk: JSON.stringify(publicJwk),
    private_jwk: sealPrivateKey(JSON.stringify(privateJwk), keyEncryptionSecret),
  };
}

/** The signing key of a stored (sealed) private JWK. */
export function openSigningKey(
  kid: string,
  alg: SigningAlg,
  sealedPrivateJwk: string,
  keyEncryptionSecret: string | undefined,
): SigningKey {
  const jwk = JSON.parse(openPrivateKey(sealedPrivateJwk, keyEncryptionSecret)) as JsonWebKey;
  return { kid, alg, key: createPrivateKey({ key: jwk, format: 'jwk' }) };
}
