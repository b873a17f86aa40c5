/**
 * CSRF protection for every form (docs/decisions.md "Sessions and CSRF"): synchronizer tokens derived with HMAC from a secret
 * only this browser's cookies lead to — the session's `csrf_secret` once signed in, and before
 * that a random pre-session cookie (so a login form cannot be forged either: "login CSRF").
 * A token is bound to its purpose, so one form's token does not open another form.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { safeEqual } from '../crypto/tokens.js';
import { cookieNames, cookieOptions } from './cookies.js';

export type CsrfPurpose = 'signin' | 'authorize' | 'apps' | 'signout' | 'device';

/** The form field every page's forms carry. */
export const CSRF_FIELD = 'csrf_token';

export function csrfToken(secret: string, purpose: CsrfPurpose): string {
  return createHmac('sha256', secret).update(`schoolauth-csrf:${purpose}`).digest('base64url');
}

export function checkCsrfToken(secret: string, purpose: CsrfPurpose, token: unknown): boolean {
  return typeof token === 'string' && token.length > 0 && safeEqual(csrfToken(secret, purpose), token);
}

const SIGNIN_COOKIE_TTL = 3600;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * The sign-in form's token. Sets the pre-session cookie when the browser has none yet (or keeps
 * the one it has, so two open sign-in tabs both work).
 */
export function signinCsrfToken(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): string {
  const name = cookieNames(ctx.config).signin;
  let secret = request.cookies[name];
  if (!secret || !SECRET.test(secret)) {
    secret = randomBytes(32).toString('base64url');
    reply.setCookie(name, secret, cookieOptions(ctx.config, SIGNIN_COOKIE_TTL));
  }
  return csrfToken(secret, 'signin');
}

export function checkSigninCsrf(ctx: AppContext, request: FastifyRequest, token: unknown): boolean {
  const secret = request.cookies[cookieNames(ctx.config).signin];
  return typeof secret === 'string' && SECRET.test(secret) && checkCsrfToken(secret, 'signin', token);
}
