/**
 * Checking an email and password. Every failure looks the same from outside — same message,
 * and a password hash is verified even for an unknown email, so timing does not reveal which
 * accounts exist. Disabled accounts cannot sign in.
 *
 * Order (docs/security.md "Sign-in throttling"): the attempt is counted (per account
 * and per IP, or per trusted browser) BEFORE the password is checked, and the check waits for a
 * slot of the process-wide bound on password checks; only then is the outcome settled.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.js';
import type { AppContext } from '../context.js';
import { decoyPasswordHash, PASSWORD_MAX_LENGTH, verifyPassword } from '../crypto/password.js';
import { passwordCheckQueue } from '../crypto/password-check-queue.js';
import { countSigninThrottled } from '../ops/metrics.js';
import {
  type Admission,
  admitSignin,
  type CountedKey,
  refundSignin,
  type SigninKey,
  signinKey,
  signinSucceeded,
} from '../rate-limit/signin-throttle.js';
import type { Account } from '../storage/schema.js';
import { trustBrowser, trustedDevice } from './device-cookie.js';

/** The one message a person sees for any failed sign-in (no account enumeration). */
export const SIGNIN_FAILED =
  'That email and password did not match an account that can sign in. Check both and try again.';

/** Seconds a sign-in refused for want of a free password-check slot is told to wait. */
const BUSY_RETRY_AFTER = 1;

export interface Credentials {
  readonly email: unknown;
  readonly password: unknown;
}

type Ctx = Pick<AppContext, 'store' | 'now' | 'config'>;

/** What checking credentials came to. */
export type CredentialCheck =
  | { readonly outcome: 'signed-in'; readonly account: Account }
  | { readonly outcome: 'failed' }
  /** Too many attempts for this account, IP or browser: nothing was checked. */
  | { readonly outcome: 'throttled'; readonly retryAfter: number }
  /** Every password-check slot was taken: nothing was checked, nothing counted. */
  | { readonly outcome: 'busy'; readonly retryAfter: number };

/**
 * Counts the attempt against this browser's own allowance when it carries a genuine device
 * cookie for the account, else against the account and the IP (docs/security.md).
 */
async function admit(ctx: Ctx, email: string, ip: string, device: string | undefined): Promise<Admission> {
  if (device !== undefined) {
    const own = await admitSignin(ctx, [signinKey.device(device)]);
    // OWASP device cookies: a cookie that failed too often is locked out, i.e. treated as untrusted.
    if (own.admitted) return own;
  }
  // The IP first: an address that is blocked is refused before anything is keyed by the email it
  // sends, so a flood of made-up emails from it writes no row (docs/security.md "Sign-in throttling").
  const keys: SigninKey[] = email === '' ? [] : [signinKey.account(email)];
  return admitSignin(ctx, [signinKey.ip(ip), ...keys]);
}

export async function checkCredentials(
  ctx: Ctx,
  input: Credentials,
  request: FastifyRequest,
): Promise<CredentialCheck> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  const plausible =
    email.length > 0 && email.length <= 320 && password.length > 0 && password.length <= PASSWORD_MAX_LENGTH;
  const account = plausible ? await ctx.store.accounts.findByEmail(email) : undefined;
  const device = account ? await trustedDevice(ctx, request, account.id) : undefined;
  const admission = await admit(ctx, email, request.ip, device);
  if (!admission.admitted) {
    countSigninThrottled('limit');
    return { outcome: 'throttled', retryAfter: admission.retryAfter };
  }
  const hash = account?.password_hash ?? (await decoyPasswordHash());
  const check = passwordCheckQueue(ctx.config).tryRun(() => verifyPassword(hash, password));
  if (!check) {
    await refundSignin(ctx, admission.counted);
    countSigninThrottled('busy');
    return { outcome: 'busy', retryAfter: BUSY_RETRY_AFTER };
  }
  return settle(ctx, request, account, await check, admission.counted, device !== undefined);
}

/** After the password check: forget or keep the counted attempt, audit, answer. */
async function settle(
  ctx: Ctx,
  request: FastifyRequest,
  account: Account | undefined,
  valid: boolean,
  counted: readonly CountedKey[],
  hasDevice: boolean,
): Promise<CredentialCheck> {
  // Trusted when the browser's own allowance took the attempt (it fell back to the account's
  // and the IP's when its device cookie was locked out).
  const trusted = hasDevice && counted.every((key) => key.kind === 'device');
  const at = ctx.now();
  if (account && valid && !account.disabled) {
    await signinSucceeded(ctx, counted);
    const detail = { trusted_browser: trusted };
    await recordAudit(
      ctx.store,
      { kind: 'signin.success', accountId: account.id, ip: request.ip, detail },
      at,
    );
    return { outcome: 'signed-in', account };
  }
  // The failure was counted before the check: nothing more to count.
  const reason = !account ? 'unknown_account' : account.disabled ? 'account_disabled' : 'wrong_password';
  const detail = { reason, trusted_browser: trusted };
  await recordAudit(
    ctx.store,
    { kind: 'signin.failure', accountId: account?.id ?? null, ip: request.ip, detail },
    at,
  );
  return { outcome: 'failed' };
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
 * checkCredentials for the HTML forms: a throttled or busy attempt (docs/security.md "Sign-in throttling") is shown on the
 * sign-in page — 429 with Retry-After — instead of a JSON error a person cannot read. A signed-in
 * browser gets a fresh device cookie, so it keeps its own allowance next time.
 */
export async function signInWithForm(
  ctx: Ctx,
  request: FastifyRequest,
  reply: FastifyReply,
  input: Credentials,
): Promise<SignInOutcome> {
  const result = await checkCredentials(ctx, input, request);
  switch (result.outcome) {
    case 'signed-in':
      await trustBrowser(ctx, reply, result.account.id);
      return { account: result.account };
    case 'failed':
      return { message: SIGNIN_FAILED, status: 200 };
    case 'throttled':
      return {
        message: `Too many failed sign-ins. Wait ${waitWords(result.retryAfter)} and try again.`,
        status: 429,
        retryAfter: result.retryAfter,
      };
    case 'busy':
      return {
        message: 'Too many sign-ins are being checked right now. Wait a moment and try again.',
        status: 429,
        retryAfter: result.retryAfter,
      };
  }
}
