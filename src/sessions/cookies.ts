/**
 * Cookie names and attributes (docs/decisions.md "Sessions and CSRF"): HttpOnly, SameSite=Lax (sent on the top-level GET that
 * brings a person from a client to /oauth/authorize, never on a cross-site POST), and on an https
 * issuer `Secure` with the `__Host-` prefix, which pins the cookie to this exact origin and path.
 */
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../config.js';

export interface CookieNames {
  /** The sign-in session. */
  readonly session: string;
  /** The pre-session secret the sign-in form's CSRF token is derived from. */
  readonly signin: string;
  /** The signed mark of a browser that signed in to an account before (src/sessions/device-cookie.ts). */
  readonly device: string;
  /** A random name for this browser on the device verification page, so wrong user codes are counted per browser (RFC 8628 §5.2). */
  readonly verify: string;
}

const isHttps = (config: Pick<Config, 'issuer'>): boolean => config.issuer.startsWith('https:');

export function cookieNames(config: Pick<Config, 'issuer'>): CookieNames {
  const prefix = isHttps(config) ? '__Host-' : '';
  return {
    session: `${prefix}schoolauth_session`,
    signin: `${prefix}schoolauth_signin`,
    device: `${prefix}schoolauth_device`,
    verify: `${prefix}schoolauth_verify`,
  };
}

export function cookieOptions(config: Pick<Config, 'issuer'>, maxAgeSeconds: number): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(config),
    maxAge: maxAgeSeconds,
  };
}
