/**
 * Issuing an authorization code (RFC 6749 §4.1.2): the code is bound to the client, the redirect
 * URI, the PKCE challenge, the scopes, the resource and the nonce; it starts a new grant that
 * every token issued from it will belong to. Only the code's hash is stored.
 */
import type { AppContext } from '../context.js';
import { mintSecret, timeOrderedId } from '../crypto/tokens.js';

export interface CodeRequest {
  readonly clientId: string;
  readonly accountId: string;
  /** Exactly as sent in the authorization request; the token request must repeat it. */
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  /** Audience of the tokens: the requested RFC 8707 resource, canonical, or the issuer. */
  readonly resource: string;
  readonly nonce: string | null;
  readonly authTime: number;
  /** RFC 9449 §10: the `dpop_jkt` of the request; the code is then redeemed only with that key's proof. */
  readonly dpopJkt?: string | undefined;
}

export interface IssuedCode {
  readonly code: string;
  readonly grantId: string;
}

export async function issueAuthorizationCode(
  ctx: Pick<AppContext, 'store' | 'config' | 'now'>,
  request: CodeRequest,
): Promise<IssuedCode> {
  const now = ctx.now();
  const code = mintSecret('code');
  const grantId = timeOrderedId('grt_');
  const scopes = request.scopes.join(' ');
  await ctx.store.tokens.issueCode(
    {
      id: grantId,
      account_id: request.accountId,
      client_id: request.clientId,
      scopes,
      resource: request.resource,
      nonce: request.nonce,
      auth_time: request.authTime,
      created_at: now,
      last_used_at: now,
      revoked_at: null,
    },
    {
      code_hash: code.hash,
      grant_id: grantId,
      client_id: request.clientId,
      account_id: request.accountId,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      scopes,
      resource: request.resource,
      nonce: request.nonce,
      auth_time: request.authTime,
      created_at: now,
      expires_at: now + ctx.config.codeTtl,
      consumed_at: null,
      jkt: request.dpopJkt ?? null,
    },
  );
  return { code: code.value, grantId };
}
