/**
 * DPoP at the token endpoint (RFC 9449 §5): the request's proof checked before the grant runs, the
 * keys the new tokens are bound to, and the errors as the token endpoint answers them
 * (`invalid_dpop_proof`, `use_dpop_nonce` with `DPoP-Nonce`, §5 and §8).
 */
import type { FastifyRequest } from 'fastify';
import { checkProof, type DpopContext, serverNonces } from '../../dpop/check.js';
import { requestHtu } from '../../dpop/htu.js';
import { DpopProblem, dpopHeader, type VerifiedProof } from '../../dpop/proof.js';
import { OAuthError } from '../../errors.js';
import type { Client } from '../../storage/schema.js';
import type { Binding } from '../token/issue.js';

/** The OAuth error of a refused proof; a missing or stale nonce brings the current one (§8). */
export async function tokenEndpointError(ctx: DpopContext, problem: DpopProblem): Promise<OAuthError> {
  const nonces = serverNonces(ctx);
  const headers: Record<string, string> = nonces ? { 'dpop-nonce': await nonces.current(ctx.now()) } : {};
  return new OAuthError(
    problem.kind === 'nonce' ? 'use_dpop_nonce' : 'invalid_dpop_proof',
    problem.description,
    400,
    headers,
  );
}

/** The token request's proof, checked and recorded; undefined when it has no DPoP header. */
export async function tokenRequestProof(
  ctx: DpopContext,
  request: FastifyRequest,
): Promise<VerifiedProof | undefined> {
  try {
    const proof = dpopHeader(request.headers.dpop);
    if (proof === undefined) return undefined;
    return await checkProof(ctx, proof, {
      method: request.method,
      htu: requestHtu(ctx.config.issuer, request.url),
    });
  } catch (error) {
    if (error instanceof DpopProblem) throw await tokenEndpointError(ctx, error);
    throw error;
  }
}

/** `dpop_bound_access_tokens` (§5.2) as registered: such a client always gets DPoP-bound tokens. */
export function requiresDpop(client: Pick<Client, 'metadata'>): boolean {
  try {
    return (
      (JSON.parse(client.metadata) as { dpop_bound_access_tokens?: unknown }).dpop_bound_access_tokens ===
      true
    );
  } catch {
    return false;
  }
}

/**
 * The keys the tokens of this request are bound to: the access token to the proof's key (§5);
 * the refresh token too for a public client (§5: a confidential client's stays bound to the
 * client, which authenticates). A client registered with dpop_bound_access_tokens and no proof
 * is refused (§5.2): it never gets a bearer token.
 */
export function bindingFor(client: Client, proof: VerifiedProof | undefined): Binding {
  if (!proof) {
    if (requiresDpop(client)) {
      throw new OAuthError(
        'invalid_dpop_proof',
        'this client is registered with dpop_bound_access_tokens: send a DPoP proof in the DPoP header of every token request',
      );
    }
    return { access: null, refresh: null };
  }
  return { access: proof.jkt, refresh: client.token_endpoint_auth_method === 'none' ? proof.jkt : null };
}

/**
 * A code or refresh token bound to a key (§10 `dpop_jkt`, §5) is used only with a proof of that
 * key; checked before anything is spent, so a refused attempt changes nothing.
 */
export function checkBoundKey(bound: string | null, proof: VerifiedProof | undefined, what: string): void {
  if (bound === null) return;
  if (!proof) {
    throw new OAuthError(
      'invalid_dpop_proof',
      `${what} is bound to a DPoP key; send a DPoP proof signed with that key`,
    );
  }
  if (proof.jkt !== bound) {
    throw new OAuthError(
      'invalid_dpop_proof',
      `${what} is bound to another DPoP key than this proof's; sign the proof with the key it is bound to`,
    );
  }
}

/** Headers of a successful token answer: the current nonce, when nonces are on (§8.2). */
export async function tokenAnswerHeaders(ctx: DpopContext): Promise<Record<string, string>> {
  const nonces = serverNonces(ctx);
  return nonces ? { 'dpop-nonce': await nonces.current(ctx.now()) } : {};
}
