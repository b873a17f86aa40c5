/**
 * The pure half of ID-token signing keys: a fresh RS256 key pair as JWKs (the private half sealed
 * with key-encryption.ts), and a sealed private JWK opened into a KeyObject. Where keys are kept,
 * when they sign and how they rotate is src/signing-keys/key-store.ts; crypto imports no storage.
 */
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { openPrivateKey, sealPrivateKey } from './key-encryption.js';
import { randomId } from './tokens.js';

export const SIGNING_ALG = 'RS256' as const;

export interface SigningKey {
  readonly kid: string;
  readonly key: KeyObject;
}

/** A key pair as stored: the public JWK and the sealed private JWK, both JSON text. */
export interface KeyMaterial {
  readonly kid: string;
  readonly public_jwk: string;
  readonly private_jwk: string;
}

/** A fresh RSA key pair (slow: up to seconds on a busy machine), the private half sealed. */
export async function newKeyMaterial(keyEncryptionSecret: string | undefined): Promise<KeyMaterial> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, {
    modulusLength: 2048,
    extractable: true,
  });
  const kid = randomId();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  return {
    kid,
    public_jwk: JSON.stringify(publicJwk),
    private_jwk: sealPrivateKey(JSON.stringify(privateJwk), keyEncryptionSecret),
  };
}

/** The signing key of a stored (sealed) private JWK. */
export function openSigningKey(
  kid: string,
  sealedPrivateJwk: string,
  keyEncryptionSecret: string | undefined,
): SigningKey {
  const jwk = JSON.parse(openPrivateKey(sealedPrivateJwk, keyEncryptionSecret)) as JsonWebKey;
  return { kid, key: createPrivateKey({ key: jwk, format: 'jwk' }) };
}
