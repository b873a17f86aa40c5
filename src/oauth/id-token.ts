/**
 * ID tokens (OIDC Core §2, §3.1.3.6): RS256 JWTs signed with the current key, `kid` in the
 * header so clients pick the right JWKS entry across rotations.
 */
import { SignJWT } from 'jose';
import type { AppContext } from '../context.js';
import { SIGNING_ALG } from '../crypto/keys.js';

export interface IdTokenInput {
  readonly accountId: string;
  readonly clientId: string;
  readonly authTime: number;
  /** The authorization request's nonce; omitted on refresh (OIDC Core §12.2). */
  readonly nonce: string | null;
}

export async function signIdToken(
  ctx: Pick<AppContext, 'config' | 'keys'>,
  now: number,
  input: IdTokenInput,
): Promise<string> {
  const { kid, key } = ctx.keys.signingKey();
  const claims: Record<string, string | number> = {
    auth_time: input.authTime,
    // OIDC Core §2: azp is the party the ID token was issued to.
    azp: input.clientId,
  };
  if (input.nonce !== null) claims.nonce = input.nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'JWT' })
    .setIssuer(ctx.config.issuer)
    .setSubject(input.accountId)
    .setAudience(input.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + ctx.config.idTokenTtl)
    .sign(key);
}
