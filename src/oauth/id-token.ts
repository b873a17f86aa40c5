/**
 * ID tokens (OIDC Core §2, §3.1.3.6): RS256 JWTs signed with the current key, `kid` in the
 * header so clients pick the right JWKS entry across rotations.
 */
import type { AppContext } from '../context.js';
import { signJwt } from '../crypto/jws.js';
import { SIGNING_ALG } from '../crypto/signing-key.js';

export interface IdTokenInput {
  readonly accountId: string;
  readonly clientId: string;
  readonly authTime: number;
  /** The authorization request's nonce; omitted on refresh (OIDC Core §12.2). */
  readonly nonce: string | null;
}

export function signIdToken(
  ctx: Pick<AppContext, 'config' | 'keys'>,
  now: number,
  input: IdTokenInput,
): Promise<string> {
  const { kid, key } = ctx.keys.signingKey();
  const claims: Record<string, string | number> = {
    iss: ctx.config.issuer,
    sub: input.accountId,
    aud: input.clientId,
    // OIDC Core §2: azp is the party the ID token was issued to.
    azp: input.clientId,
    iat: now,
    exp: now + ctx.config.idTokenTtl,
    auth_time: input.authTime,
  };
  if (input.nonce !== null) claims.nonce = input.nonce;
  return signJwt({ alg: SIGNING_ALG, kid, typ: 'JWT' }, claims, key);
}
