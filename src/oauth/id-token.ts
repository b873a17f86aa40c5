/**
 * ID tokens (OIDC Core §2, §3.1.3.6): JWTs signed with the current key of the algorithm the client
 * registered (`id_token_signed_response_alg`, RS256 by default), `kid` in the header so clients
 * pick the right JWKS entry across rotations.
 */
import type { AppContext } from '../context.js';
import { signJwt } from '../crypto/jws.js';
import type { SigningAlg } from '../crypto/signing-key.js';

export interface IdTokenInput {
  readonly accountId: string;
  readonly clientId: string;
  /** The client's `id_token_signed_response_alg`. */
  readonly alg: SigningAlg;
  readonly authTime: number;
  /** The authorization request's nonce; omitted on refresh (OIDC Core §12.2). */
  readonly nonce: string | null;
}

export function signIdToken(
  ctx: Pick<AppContext, 'config' | 'keys'>,
  now: number,
  input: IdTokenInput,
): Promise<string> {
  const { kid, alg, key } = ctx.keys.signingKey(input.alg);
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
  return signJwt({ alg, kid, typ: 'JWT' }, claims, key);
}
