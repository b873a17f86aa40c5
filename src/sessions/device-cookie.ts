/**
 * Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * has signed in to an account carries a cookie naming that account, signed by the server, and
 * keeps a sign-in allowance of its own while untrusted browsers are locked out — so an attacker
 * failing on purpose cannot lock the owner out. The cookie is no credential: the password is
 * still checked, and the cookie only decides which counter an attempt is counted against.
 *
 * Value: `<account id>.<nonce>.<issued at>.<HMAC-SHA256>` — the nonce (128 random bits) names
 * this browser's counter, the MAC is over the rest under a key created once per database
 * (src/storage/server-secrets.repository.ts), so every instance accepts what another issued.
 * Cookie attributes as the session's (src/sessions/cookies.ts); a fresh cookie at every sign-in.
 */
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { randomBase64url } from '../crypto/random.js';
import { safeEqual } from '../crypto/tokens.js';
import type { Store } from '../storage/store.js';
import { cookieNames, cookieOptions } from './cookies.js';

/** A browser stays trusted this long after its last sign-in to the account (180 days). */
export const DEVICE_COOKIE_TTL = 180 * 24 * 3600;
/** Issue times this far ahead of our clock are accepted: instances' clocks differ a little. */
const CLOCK_SKEW = 300;
const VALUE = /^([A-Za-z0-9_-]{1,100})\.([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

type Ctx = Pick<AppContext, 'store' | 'config' | 'now'>;

const keys = new WeakMap<Store, Promise<Buffer>>();

/** The signing key, read (or created) once per store; load it at start. */
export function deviceCookieKey(ctx: Pick<AppContext, 'store' | 'now'>): Promise<Buffer> {
  let key = keys.get(ctx.store);
  if (!key) {
    key = ctx.store.serverSecrets.get('device_cookie_hmac', ctx.now());
    keys.set(ctx.store, key);
    key.catch(() => keys.delete(ctx.store));
  }
  return key;
}

function sign(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(`schoolauth-device:${payload}`).digest('base64url');
}

/**
 * The nonce of the request's device cookie when it is genuine, unexpired and names `accountId`;
 * undefined for anything else (absent, forged, another account's, expired).
 */
export async function trustedDevice(
  ctx: Ctx,
  request: FastifyRequest,
  accountId: string,
): Promise<string | undefined> {
  const match = VALUE.exec(request.cookies[cookieNames(ctx.config).device] ?? '');
  if (!match) return undefined;
  const [, account, nonce, issuedAt, mac] = match as unknown as [string, string, string, string, string];
  const now = ctx.now();
  const age = now - Number(issuedAt);
  if (account !== accountId || age >= DEVICE_COOKIE_TTL || age < -CLOCK_SKEW) return undefined;
  const expected = sign(await deviceCookieKey(ctx), `${account}.${nonce}.${issuedAt}`);
  return safeEqual(expected, mac) ? nonce : undefined;
}

/** Marks this browser as one that signed in to `accountId`: a new nonce, a new lifetime. */
export async function trustBrowser(ctx: Ctx, reply: FastifyReply, accountId: string): Promise<void> {
  const payload = `${accountId}.${randomBase64url(16)}.${ctx.now()}`;
  const value = `${payload}.${sign(await deviceCookieKey(ctx), payload)}`;
  reply.setCookie(cookieNames(ctx.config).device, value, cookieOptions(ctx.config, DEVICE_COOKIE_TTL));
}
