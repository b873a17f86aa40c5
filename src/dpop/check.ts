/**
 * One DPoP proof judged whole (RFC 9449 §4.3): the proof itself (proof.ts), the server nonce when
 * nonces are on (nonces.ts, §8, §9), then its record (replay.ts, §11.1), last, so that a proof
 * refused for another reason does not spend its `jti`.
 */
import type { AppContext } from '../context.js';
import type { Store } from '../storage/store.js';
import { ServerNonces } from './nonces.js';
import { DpopProblem, type ProofExpectations, type VerifiedProof, verifyProof } from './proof.js';
import { recordProof } from './replay.js';

export type DpopContext = Pick<AppContext, 'config' | 'store' | 'now'>;

// One per store: the app's (and each test app's) instance of the nonces.
const nonceServices = new WeakMap<Store, ServerNonces>();

/** This app's server nonces; undefined when DPOP_NONCES is off. */
export function serverNonces(ctx: DpopContext): ServerNonces | undefined {
  if (!ctx.config.dpopNonces) return undefined;
  let service = nonceServices.get(ctx.store);
  if (!service) {
    service = new ServerNonces(ctx.store.dpopNonces);
    nonceServices.set(ctx.store, service);
  }
  return service;
}

/** Throws a DpopProblem when the proof is refused; answers its key and claims when accepted. */
export async function checkProof(
  ctx: DpopContext,
  proof: string,
  expect: Omit<ProofExpectations, 'now' | 'window'>,
): Promise<VerifiedProof> {
  const now = ctx.now();
  const window = ctx.config.dpopProofWindow;
  const verified = await verifyProof(proof, { ...expect, now, window });
  const nonces = serverNonces(ctx);
  if (nonces && !(await nonces.accepts(verified.nonce, now))) {
    throw new DpopProblem(
      verified.nonce === undefined
        ? 'this server requires a nonce in DPoP proofs; make the proof again with the "nonce" claim set to the DPoP-Nonce header of this answer'
        : "the DPoP proof's nonce is not (or no longer) one of this server's; make the proof again with the DPoP-Nonce header of this answer",
      'nonce',
    );
  }
  if (!(await recordProof(ctx.store.dpopProofs, verified, window, now))) {
    throw new DpopProblem('this DPoP proof was used before; make a new proof (a new jti) for every request');
  }
  return verified;
}
