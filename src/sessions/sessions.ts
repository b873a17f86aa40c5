/**
 * Server-side sign-in sessions (docs/decisions.md "Sessions and CSRF"). The browser holds an opaque value from
 * `mintSecret('session')`; the database holds only its stored key (time of issue and SHA-256).
 * A session ends after SESSION_TTL without use (idle) or SESSION_ABSOLUTE_TTL after sign-in,
 * whichever comes first; `expires_at` always holds that moment so pruning needs no arithmetic.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { hashSecret, mintSecret } from '../crypto/tokens.js';
import type { Account } from '../storage/schema.js';
import { cookieNames, cookieOptions } from './cookies.js';

export interface ActiveSession {
  readonly idHash: string;
  readonly account: Account;
  readonly csrfSecret: string;
  /** When the person last entered their password (OIDC auth_time). */
  readonly authTime: number;
}

type Ctx = Pick<AppContext, 'store' | 'config' | 'now'>;

function presentedHash(ctx: Ctx, request: FastifyRequest): string | undefined {
  const value = request.cookies[cookieNames(ctx.config).session];
  return value ? hashSecret(value) : undefined;
}

/** The request's live session, or undefined (expired and disabled-account sessions are deleted). */
export async function loadSession(ctx: Ctx, request: FastifyRequest): Promise<ActiveSession | undefined> {
  const idHash = presentedHash(ctx, request);
  if (!idHash) return undefined;
  const row = await ctx.store.sessions.find(idHash);
  if (!row) return undefined;
  const now = ctx.now();
  const account = now < row.expires_at ? await ctx.store.accounts.findById(row.account_id) : undefined;
  if (!account || account.disabled) {
    await ctx.store.sessions.end(idHash);
    return undefined;
  }
  const expiresAt = Math.min(row.created_at + ctx.config.sessionAbsoluteTtl, now + ctx.config.sessionTtl);
  await ctx.store.sessions.touch(idHash, now, expiresAt);
  return { idHash, account, csrfSecret: row.csrf_secret, authTime: row.auth_time };
}

/**
 * Starts a session after a successful sign-in. Any session the browser presented is deleted
 * first and a new identifier is issued (OWASP session fixation: rotate at privilege change).
 */
export async function startSession(
  ctx: Ctx,
  request: FastifyRequest,
  reply: FastifyReply,
  account: Account,
): Promise<ActiveSession> {
  const old = presentedHash(ctx, request);
  if (old) await ctx.store.sessions.end(old);
  const now = ctx.now();
  const secret = mintSecret('session');
  const csrfSecret = randomBytes(32).toString('base64url');
  await ctx.store.sessions.start({
    id_hash: secret.hash,
    account_id: account.id,
    csrf_secret: csrfSecret,
    auth_time: now,
    created_at: now,
    last_seen_at: now,
    expires_at: now + Math.min(ctx.config.sessionTtl, ctx.config.sessionAbsoluteTtl),
  });
  reply.setCookie(
    cookieNames(ctx.config).session,
    secret.value,
    cookieOptions(ctx.config, ctx.config.sessionAbsoluteTtl),
  );
  return { idHash: secret.hash, account, csrfSecret, authTime: now };
}

/** Signs out: the row is deleted (so the cookie is dead everywhere) and the cookie cleared. */
export async function endSession(ctx: Ctx, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const idHash = presentedHash(ctx, request);
  if (idHash) await ctx.store.sessions.end(idHash);
  const { maxAge: _unused, ...options } = cookieOptions(ctx.config, 0);
  reply.clearCookie(cookieNames(ctx.config).session, options);
}
