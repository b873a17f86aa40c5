/**
 * The JWS algorithms a DPoP proof may be signed with (RFC 9449 §5.1 metadata
 * `dpop_signing_alg_values_supported`, §7.1 challenge `algs`): asymmetric only (§4.2: never
 * `none` nor a MAC). ES256 and EdDSA are cheap to verify; RS256 because many libraries' keys are
 * RSA. `Ed25519` is EdDSA with the curve in its name (RFC 9864's fully-specified algorithm), what
 * openid-client 6 signs an Ed25519 key's proofs with.
 */
export const DPOP_SIGNING_ALGS = ['ES256', 'EdDSA', 'Ed25519', 'RS256'] as const;

export type DpopSigningAlg = (typeof DPOP_SIGNING_ALGS)[number];

export function isDpopSigningAlg(value: unknown): value is DpopSigningAlg {
  return (DPOP_SIGNING_ALGS as readonly unknown[]).includes(value);
}

/** The `algs` of a `WWW-Authenticate: DPoP` challenge (RFC 9449 §7.1): space-separated. */
export const DPOP_ALGS_TEXT = DPOP_SIGNING_ALGS.join(' ');
