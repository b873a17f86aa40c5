/**
 * When remembered consent may answer an authorization request without a page (docs/decisions.md "Authorization endpoint" "Remembered consent").
 *
 * RFC 8252 §8.6: a public native client cannot prove who it is — any local process that knows
 * its `client_id` can listen on a loopback port (every port matches, RFC 8252 §7.3) and receive
 * its code, and the code needs no secret to redeem. So for a public client
 * (`token_endpoint_auth_method=none`) remembered consent never makes a request silent: the
 * person confirms every request on the consent page, and `prompt=none` answers
 * `consent_required`. A confidential client's code is useless without its secret, so its
 * remembered consent answers silently.
 */
import type { Client, Consent } from '../../storage/schema.js';
import { isSubset, splitScope } from '../scopes.js';
import type { AuthorizationRequest } from './validate.js';

export interface ConsentJudgement {
  /** The person allowed this client every requested scope before. */
  readonly remembered: boolean;
  /** Issue the code now, without showing the consent page. */
  readonly silent: boolean;
}

/** Whether the client authenticates at the token endpoint (RFC 6749 §2.1 confidential). */
export function isConfidential(client: Pick<Client, 'token_endpoint_auth_method'>): boolean {
  return client.token_endpoint_auth_method !== 'none';
}

export function judgeConsent(
  client: Pick<Client, 'token_endpoint_auth_method'>,
  consent: Pick<Consent, 'scopes'> | undefined,
  request: Pick<AuthorizationRequest, 'scopes' | 'prompt'>,
): ConsentJudgement {
  const remembered = consent !== undefined && isSubset(request.scopes, splitScope(consent.scopes));
  return { remembered, silent: remembered && isConfidential(client) && !request.prompt.has('consent') };
}

/** The error_description of `consent_required` for prompt=none (OIDC Core §3.1.2.6). */
export function consentRequiredDescription(judgement: ConsentJudgement): string {
  return judgement.remembered
    ? 'this app is a public client (no client secret), so the person confirms every authorization on the consent page (RFC 8252 §8.6); send the request without prompt=none'
    : 'the person has not allowed this app these scopes; send the request without prompt=none';
}
