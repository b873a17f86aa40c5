/**
 * DPoP-bound access tokens on protected requests (RFC 9449 §7): `Authorization: DPoP <token>` with
 * a proof of the token's key whose `ath` is the token's hash, and the `WWW-Authenticate: DPoP`
 * challenges (§7.1: `algs`, `error`, and `resource_metadata` as the Bearer challenge has it,
 * RFC 9728 §5.1). Shared by the school API guard and UserInfo; Bearer requests never come here.
 */
import type { FastifyRequest } from 'fastify';
import { hashSecret } from '../crypto/tokens.js';
import { DPOP_ALGS_TEXT } from '../dpop/algorithms.js';
import { checkProof, type DpopContext, serverNonces } from '../dpop/check.js';
import { requestHtu } from '../dpop/htu.js';
import { DpopProblem, dpopHeader } from '../dpop/proof.js';
import { OAuthError } from '../errors.js';
import type { AccessTokenWithAccount, BearerToken } from '../storage/contract/bearer-tokens.js';
import { acceptToken, resourceMetadataUrl } from './bearer.js';

/** RFC 9449 §7.1: `DPoP` SP token68, as RFC 6750 §2.1 has it for Bearer. */
const DPOP_AUTHORIZATION = /^DPoP +([A-Za-z0-9\-._~+/]+=*)$/i;

/** Whether the request names the DPoP scheme (then it is judged here, never as Bearer). */
export function isDpopAuthorization(header: string | string[] | undefined): header is string {
  return typeof header === 'string' && /^\s*DPoP\s/i.test(header);
}

const quote = (value: string): string => `"${value.replace(/["\\]/g, '')}"`;

/** `WWW-Authenticate: DPoP algs="…", error="…", error_description="…", resource_metadata="…"`. */
export function dpopChallenge(
  issuer: string,
  details: { error?: string; description?: string; scope?: string } = {},
) {
  const params = [`algs=${quote(DPOP_ALGS_TEXT)}`];
  if (details.error) params.push(`error=${quote(details.error)}`);
  if (details.description) params.push(`error_description=${quote(details.description)}`);
  if (details.scope) params.push(`scope=${quote(details.scope)}`);
  params.push(`resource_metadata=${quote(resourceMetadataUrl(issuer))}`);
  return `DPoP ${params.join(', ')}`;
}

type DpopErrorCode = 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce';

function refusal(
  issuer: string,
  error: DpopErrorCode,
  description: string,
  extra: Record<string, string> = {},
): OAuthError {
  return new OAuthError(error, description, 401, {
    'www-authenticate': dpopChallenge(issuer, { error, description }),
    ...extra,
  });
}

/**
 * The same refusal with a DPoP challenge instead of a Bearer one: what acceptToken and the scope
 * check throw is answered in the scheme the request used.
 */
export function inDpopScheme(error: unknown): unknown {
  if (!(error instanceof OAuthError)) return error;
  const challenge = error.headers['www-authenticate'];
  if (challenge === undefined || !challenge.startsWith('Bearer ')) return error;
  return new OAuthError(error.code, error.description, error.status, {
    ...error.headers,
    'www-authenticate': `DPoP algs=${quote(DPOP_ALGS_TEXT)}, ${challenge.slice('Bearer '.length)}`,
  });
}

/**
 * §7.2: a DPoP-bound token presented as Bearer is refused (its key is what makes it usable);
 * the challenge says to use the DPoP scheme.
 */
export function refuseBoundAsBearer(issuer: string, token: Pick<BearerToken, 'jkt'>): void {
  if (token.jkt === null) return;
  throw refusal(
    issuer,
    'invalid_token',
    'this access token is bound to a DPoP key; send it as "Authorization: DPoP <access token>" with a DPoP proof of that key',
  );
}

async function problemError(ctx: DpopContext, problem: DpopProblem): Promise<OAuthError> {
  const { issuer } = ctx.config;
  if (problem.kind === 'nonce') {
    // §9: the resource server's nonce, in DPoP-Nonce beside the challenge.
    const nonce = await serverNonces(ctx)!.current(ctx.now());
    return refusal(issuer, 'use_dpop_nonce', problem.description, { 'dpop-nonce': nonce });
  }
  return refusal(issuer, 'invalid_dpop_proof', problem.description);
}

export interface DpopPresented {
  readonly token: string;
  readonly tokenHash: string;
}

/** The token of `Authorization: DPoP <token>`; 401 when the header is not that. */
export function readDpopAuthorization(issuer: string, header: string): DpopPresented {
  const match = DPOP_AUTHORIZATION.exec(header.trim());
  if (!match)
    throw refusal(issuer, 'invalid_token', 'the Authorization header must be "DPoP <access token>"');
  return { token: match[1]!, tokenHash: hashSecret(match[1]!) };
}

/**
 * §7.1: the request's proof (for this method and URI, with `ath` of this token; recorded once)
 * and the token's row, judged together: the token must be live (acceptToken) and bound to the
 * proof's key. Throws 401 with a DPoP challenge.
 */
export async function judgeDpopRequest(
  ctx: DpopContext,
  request: FastifyRequest,
  presented: DpopPresented,
  lookUp: (tokenHash: string) => Promise<AccessTokenWithAccount | undefined>,
): Promise<BearerToken> {
  const { issuer } = ctx.config;
  let jkt: string;
  try {
    const proof = dpopHeader(request.headers.dpop);
    if (proof === undefined) {
      throw new DpopProblem(
        'a DPoP access token needs a DPoP proof: send one in the DPoP header, with "ath" the hash of the token',
      );
    }
    ({ jkt } = await checkProof(ctx, proof, {
      method: request.method,
      htu: requestHtu(issuer, request.url),
      accessToken: presented.token,
    }));
  } catch (error) {
    if (error instanceof DpopProblem) throw await problemError(ctx, error);
    throw error;
  }
  let token: BearerToken;
  try {
    token = acceptToken(ctx, await lookUp(presented.tokenHash));
  } catch (error) {
    throw inDpopScheme(error);
  }
  if (token.jkt !== jkt) {
    throw refusal(
      issuer,
      'invalid_token',
      token.jkt === null
        ? 'this access token is not bound to a DPoP key; send it as "Authorization: Bearer <access token>"'
        : "this access token is bound to another DPoP key than the proof's; sign the proof with the token's key",
    );
  }
  return token;
}
