/** The keys of the rate limits (window-counters.ts, signin-throttle.ts): never a secret in clear. */
import { hashSecret } from '../crypto/tokens.js';

/** A bounded, log-safe key: long or secret-bearing values are replaced by their hash. */
export function limitKey(scope: string, value: string, secret = false): string {
  return `${scope}:${secret || value.length > 128 ? hashSecret(value) : value}`;
}
