/**
 * Checking an email and password. Every failure looks the same from outside — same message,
 * and a password hash is verified even for an unknown email, so timing does not reveal which
 * accounts exist. Disabled accounts cannot sign in.
 */

import { recordAudit } from '../audit/audit.js';
import type { AppContext } from '../context.js';
import { decoyPasswordHash, PASSWORD_MAX_LENGTH, verifyPassword } from '../crypto/password.js';
import { WireError } from '../errors.js';
import { rateLimited } from '../rate-limit/rate-limited.js';
import { clearSigninFailures, recordSigninFailure, signinRetryAfter } from '../rate-limit/signin-throttle.js';
import { findAccountByEmail } from '../storage/accounts.repository.js';
import type { Account } from '../storage/schema.js';

/** The one message a person sees for any failed sign-in (no account enumeration). */
export const SIGNIN_FAILED =
  'That email and password did not match an account that can sign in. Check both and try again.';

export interface Credentials {
  readonly email: unknown;
  readonly password: unknown;
}

type Ctx = Pick<AppContext, 'db' | 'now' | 'config'>;

export async function checkCredentials(
  ctx: Ctx,
  input: Credentials,
  ip: string,
): Promise<Account | undefined> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  const plausible =
    email.length > 0 && email.length <= 320 && password.length > 0 && password.length <= PASSWORD_MAX_LENGTH;
  // SPEC §9: throttled per account and per IP; a blocked attempt is refused before any check.
  const retryAfter = await signinRetryAfter(ctx, email, ip);
  if (retryAfter > 0) throw rateLimited(retryAfter, 'failed sign-ins for this account or from this address');
  const account = plausible ? await findAccountByEmail(ctx.db, email) : undefined;
  const valid = await verifyPassword(account?.password_hash ?? (await decoyPasswordHash()), password);
  if (account && valid && !account.disabled) {
    await clearSigninFailures(ctx, email);
    await recordAudit(ctx.db, { kind: 'signin.success', accountId: account.id, ip }, ctx.now());
    return account;
  }
  await recordSigninFailure(ctx, email, ip);
  const reason = !account ? 'unknown_account' : account.disabled ? 'account_disabled' : 'wrong_password';
  await recordAudit(
    ctx.db,
    { kind: 'signin.failure', accountId: account?.id ?? null, ip, detail: { reason } },
    ctx.now(),
  );
  return undefined;
}

/** What a sign-in form answers: the account, or the message to show again with its status. */
export type SignInOutcome =
  | { readonly account: Account }
  | { readonly message: string; readonly status: 200 | 429; readonly retryAfter?: number };

function waitWords(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes <= 1 ? 'a minute' : `${minutes} minutes`;
}

/**
 * checkCredentials for the HTML forms: a throttled attempt (SPEC §9) is shown on the sign-in
 * page — 429 with Retry-After — instead of a JSON error a person cannot read.
 */
export async function signInWithForm(ctx: Ctx, input: Credentials, ip: string): Promise<SignInOutcome> {
  try {
    const account = await checkCredentials(ctx, input, ip);
    return account ? { account } : { message: SIGNIN_FAILED, status: 200 };
  } catch (error) {
    if (!(error instanceof WireError) || error.code !== 'rate_limited') throw error;
    const retryAfter = Number(error.headers['retry-after']) || 60;
    return {
      message: `Too many failed sign-ins. Wait ${waitWords(retryAfter)} and try again.`,
      status: 429,
      retryAfter,
    };
  }
}
