/**
 * Headers on every answer, whoever writes it (Fastify, the parser-error answers in
 * client-error.ts): the request id, `nosniff`, and on an https issuer Strict-Transport-Security.
 */
import type { FastifyReply } from 'fastify';

/**
 * RFC 6797: one year, without `includeSubDomains` — the issuer is one host, its cookies are
 * `__Host-` (never shared with subdomains), and its subdomains belong to whoever runs them;
 * an operator who wants more sets it at the proxy (docs/deploy.md). Not sent on http: browsers
 * ignore it there (RFC 6797 §8.1), and an http issuer is only ever a loopback development one.
 */
export const HSTS = 'max-age=31536000';

/** Whether answers carry Strict-Transport-Security: the issuer is https. */
export function usesHsts(issuer: string): boolean {
  return issuer.startsWith('https:');
}

/** Sets the common headers on a Fastify answer to the request with this id (request-arrival.ts). */
export function setCommonHeaders(reply: FastifyReply, requestId: string, hsts: boolean): void {
  reply.header('x-request-id', requestId);
  reply.header('x-content-type-options', 'nosniff');
  if (hsts) reply.header('strict-transport-security', HSTS);
}
