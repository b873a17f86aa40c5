/**
 * Optional encryption at rest of private signing keys (AES-256-GCM, key derived with HKDF from
 * KEY_ENCRYPTION_SECRET). Without the secret, keys are stored as plain JWK JSON; keys stored so
 * are sealed at the first start with the secret (src/signing-keys/key-sealing.ts).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'schoolauth', 'signing-key-encryption', 32));
}

/** Whether a stored private key is sealed (else it is plain JWK JSON). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

export function sealPrivateKey(plain: string, secret: string | undefined): string {
  if (!secret) return plain;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secret), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export function openPrivateKey(stored: string, secret: string | undefined): string {
  if (!isSealed(stored)) return stored;
  if (!secret)
    throw new Error('signing keys are encrypted: set KEY_ENCRYPTION_SECRET to the secret used to store them');
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
  try {
    // A truncated value fails here (an authentication tag too short), inside the one refusal.
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(secret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(
      'a signing key could not be decrypted: KEY_ENCRYPTION_SECRET differs from the one used to store it',
    );
  }
}
