/**
 * Sending an HTML page with the headers every page needs (docs/clients.md "Sign-in, consent and Connected apps"): no framing
 * (X-Frame-Options and CSP frame-ancestors, against clickjacking the Allow button), no inline
 * script or style, no referrer (the authorize URL carries the client's state), never cached.
 */
import type { FastifyReply } from 'fastify';
import type { SafeHtml } from './html.js';

export interface PageOptions {
  /**
   * Extra origins forms may submit to. CSP form-action also governs the redirects that follow a
   * submission, so the authorize pages add the (verified) redirect URI's origin.
   */
  readonly formTargets?: readonly string[];
}

export function contentSecurityPolicy(options: PageOptions = {}): string {
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const PAGE_HEADERS = {
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  pragma: 'no-cache',
} as const;

export function sendPage(
  reply: FastifyReply,
  status: number,
  page: SafeHtml,
  options: PageOptions = {},
): FastifyReply {
  return reply
    .code(status)
    .headers({ ...PAGE_HEADERS, 'content-security-policy': contentSecurityPolicy(options) })
    .type('text/html; charset=utf-8')
    .send(page.value);
}

/** A redirect from a page flow (never cached, never leaking a referrer). */
export function sendRedirect(reply: FastifyReply, status: 302 | 303, location: string): FastifyReply {
  return reply
    .code(status)
    .headers({ ...PAGE_HEADERS, location })
    .send();
}
