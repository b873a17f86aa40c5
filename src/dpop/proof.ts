/**
 * Checking a DPoP proof JWT (RFC 9449 §4.2, §4.3): every check of §4.3 but the `jti` record
 * (replay.ts: that one needs the store) and the server nonce's value (the caller gives the check).
 * Pure but for the signature: jose verifies it with the proof's own `jwk` (EmbeddedJWK) and
 * computes the key's RFC 7638 thumbprint; nothing here is hand-made cryptography.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type CryptoKey,
  calculateJwkThumbprint,
  compactVerify,
  decodeProtectedHeader,
  EmbeddedJWK,
  errors,
  type JWK,
} from 'jose';
import { DPOP_SIGNING_ALGS, type DpopSigningAlg, isDpopSigningAlg } from './algorithms.js';
import { normaliseHtu } from './htu.js';
import { headerTextOf, knownKey, rememberKey } from './known-keys.js';

/** A proof is a few hundred bytes; an RSA-4096 key makes it about 2 KB. Longer is refused unread. */
export const MAX_PROOF_LENGTH = 4096;
/** `jti` (RFC 9449 §4.2: enough entropy to be unique): a UUID or 16+ random bytes fit easily. */
const MAX_JTI_LENGTH = 128;
/** Members of a JWK that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const ALGS_TEXT = DPOP_SIGNING_ALGS.join(', ');

/**
 * Why a proof was refused. `nonce`: it lacks the server's current nonce (§8: `use_dpop_nonce`);
 * `invalid`: anything else (`invalid_dpop_proof`). The description says what to send instead.
 */
export class DpopProblem extends Error {
  constructor(
    readonly description: string,
    readonly kind: 'invalid' | 'nonce' = 'invalid',
  ) {
    super(description);
    this.name = 'DpopProblem';
  }
}

export interface ProofExpectations {
  /** The request's method (`htm`, RFC 9110 §9.1: case-sensitive). */
  readonly method: string;
  /** The request's URI, normalised (htu.ts requestHtu). */
  readonly htu: string;
  /** §4.3 check 12 / §7: the access token the proof must be bound to through `ath`. */
  readonly accessToken?: string;
  readonly now: number;
  /** Seconds `iat` may lie before or after now (§4.3 check 11, §11.1). */
  readonly window: number;
}

export interface VerifiedProof {
  /** The RFC 7638 SHA-256 thumbprint of the proof's key, base64url (`cnf.jkt`, §6.1). */
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
  /** The server nonce it carries (§8), for nonces.ts to judge when nonces are in use. */
  readonly nonce: string | undefined;
}

const invalid = (description: string) => new DpopProblem(description);
const badSignature = () =>
  invalid(
    "the DPoP proof's signature does not verify with the jwk in its header; sign it with that key's private key",
  );

function checkShape(proof: string): void {
  if (proof.length > MAX_PROOF_LENGTH) {
    throw invalid(
      `the DPoP proof is ${proof.length} characters long, more than ${MAX_PROOF_LENGTH}; send a compact JWS signed with an ${ALGS_TEXT} key`,
    );
  }
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(proof)) {
    throw invalid('the DPoP header is not a compact JWS (three base64url parts joined by dots)');
  }
}

function headerOf(proof: string): Record<string, unknown> {
  try {
    return decodeProtectedHeader(proof) as Record<string, unknown>;
  } catch {
    throw invalid("the DPoP proof's header is not base64url-encoded JSON; send a JWS header object");
  }
}

function checkHeader(header: Record<string, unknown>): { alg: DpopSigningAlg; jwk: JWK } {
  // §4.3 check 4: typ.
  if (header.typ !== 'dpop+jwt') {
    throw invalid(
      `the DPoP proof's typ is ${JSON.stringify(header.typ)}; it must be "dpop+jwt" (RFC 9449 §4.2)`,
    );
  }
  // §4.3 check 5: an asymmetric algorithm this server supports; never none or a MAC.
  const alg = header.alg;
  if (!isDpopSigningAlg(alg)) {
    const why =
      alg === 'none' || (typeof alg === 'string' && /^HS/i.test(alg))
        ? ' (a proof is signed with the private key of an asymmetric pair, never unsigned or with a shared secret)'
        : '';
    throw invalid(
      `the DPoP proof's alg ${JSON.stringify(alg)} is not accepted${why}; sign it with one of ${ALGS_TEXT}`,
    );
  }
  // §4.3 check 7: the public key, and nothing of a private one.
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    throw invalid('the DPoP proof has no "jwk" header member; put the public key of the signing key there');
  }
  const secret = PRIVATE_MEMBERS.find((member) => Object.hasOwn(jwk, member));
  if (secret !== undefined) {
    throw invalid(
      `the DPoP proof's jwk carries the private member "${secret}"; put only the public key in the header (and treat that private key as disclosed)`,
    );
  }
  return { alg, jwk: jwk as JWK };
}

/**
 * The payload of a proof whose signature verifies: with a known key (known-keys.ts) when its
 * header text is one already judged here — the same text is the same header, which passed
 * checkHeader and jose then — else with the header checked and jose verifying the signature.
 */
async function verifiedPayload(proof: string): Promise<{ claims: Record<string, unknown>; jkt: string }> {
  const headerText = headerTextOf(proof);
  const known = knownKey(headerText);
  let payload: Uint8Array;
  let jkt: string;
  if (known) {
    if (!known.verify(proof)) throw badSignature();
    payload = Buffer.from(proof.slice(headerText.length + 1, proof.lastIndexOf('.')), 'base64url');
    jkt = known.jkt;
  } else {
    const { alg, jwk } = checkHeader(headerOf(proof));
    try {
      // §4.3 check 6: the signature, with the header's key (jose refuses a private or mismatched key).
      const verified = await compactVerify(proof, EmbeddedJWK, { algorithms: [...DPOP_SIGNING_ALGS] });
      payload = verified.payload;
      jkt = await calculateJwkThumbprint(jwk, 'sha256');
      rememberKey(headerText, alg, verified.key as CryptoKey, jkt);
    } catch (error) {
      if (error instanceof errors.JWSSignatureVerificationFailed) throw badSignature();
      const reason = error instanceof errors.JOSEError ? error.message : 'it cannot be read';
      throw invalid(
        `the DPoP proof's jwk is not a usable public key for its alg (${reason}); send the public JWK of the signing key`,
      );
    }
  }
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    claims = undefined;
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw invalid("the DPoP proof's payload is not a JSON object; send the claims jti, htm, htu and iat");
  }
  return { claims: claims as Record<string, unknown>, jkt };
}

/** base64url(SHA-256(ASCII(token))): the `ath` claim (RFC 9449 §4.2). */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function checkClaims(
  claims: Record<string, unknown>,
  expect: ProofExpectations,
): { jti: string; iat: number } {
  const { jti, htm, htu, iat, ath } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
    throw invalid(`the DPoP proof needs a "jti" claim: a unique string of 1 to ${MAX_JTI_LENGTH} characters`);
  }
  // §4.3 check 8.
  if (htm !== expect.method) {
    throw invalid(
      `the DPoP proof's htm is ${JSON.stringify(htm)}; it must be the request's method, "${expect.method}"`,
    );
  }
  // §4.3 check 9.
  if (typeof htu !== 'string' || normaliseHtu(htu) !== expect.htu) {
    throw invalid(
      `the DPoP proof's htu is ${JSON.stringify(htu)}; it must be the request's URI without query and fragment, "${expect.htu}"`,
    );
  }
  // §4.3 check 11: iat within the window (a NumericDate, RFC 7519 §2).
  if (typeof iat !== 'number' || !Number.isFinite(iat)) {
    throw invalid('the DPoP proof needs an "iat" claim: the time it was made, in seconds since the epoch');
  }
  if (Math.abs(iat - expect.now) > expect.window) {
    throw invalid(
      `the DPoP proof's iat is ${Math.round(iat - expect.now)} s from the server's time (${expect.now}); make a fresh proof for each request, within ${expect.window} s of now`,
    );
  }
  // §4.3 check 12 / §7: bound to the access token presented with it.
  if (expect.accessToken !== undefined) {
    if (typeof ath !== 'string') {
      throw invalid(
        'the DPoP proof needs an "ath" claim with an access token: base64url(SHA-256(access token))',
      );
    }
    if (!sameText(ath, accessTokenHash(expect.accessToken))) {
      throw invalid(
        "the DPoP proof's ath is not the hash of the access token sent with it; make the proof for this token",
      );
    }
  }
  return { jti, iat };
}

/**
 * RFC 9449 §4.3 checks 2–12 of one proof (check 1, one DPoP header, is dpopHeader's); throws a
 * DpopProblem naming what was wrong. The `jti` is recorded (replay.ts) and the nonce's value
 * judged (nonces.ts, check 10) by the caller: both need the store.
 */
export async function verifyProof(proof: string, expect: ProofExpectations): Promise<VerifiedProof> {
  checkShape(proof);
  // §4.3 checks 4–7: the header and the signature.
  const { claims, jkt } = await verifiedPayload(proof);
  const { jti, iat } = checkClaims(claims, expect);
  const nonce = claims.nonce;
  if (nonce !== undefined && typeof nonce !== 'string') {
    throw invalid('the DPoP proof\'s "nonce" must be the string the server sent in DPoP-Nonce');
  }
  return { jkt, jti, iat, nonce };
}

/**
 * The request's one DPoP header (§4.3 check 1). Node joins repeated headers of an unknown name
 * with ", ", and a compact JWS has no comma: a comma means two headers. undefined: none sent.
 */
export function dpopHeader(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) || value.includes(',')) {
    throw invalid('the request carries more than one DPoP header; send exactly one proof');
  }
  const trimmed = value.trim();
  if (trimmed === '')
    throw invalid('the DPoP header is empty; send a DPoP proof JWT or leave the header out');
  return trimmed;
}
