/**
 * Headers on every answer, whoever writes it (Fastify, the parser-error answers in
 * client-error.ts): the request id, `nosniff`, and on an https issuer Strict-Transport-Security.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

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

/** Sets the common headers on an answer to the request with this id. */
export function setCommonHeaders(reply: FastifyReply, requestId: string, hsts: boolean): void {
  reply.header('x-request-id', requestId);
  reply.header('x-content-type-options', 'nosniff');
  if (hsts) reply.header('strict-transport-security', HSTS);
}

/**
 * Set when the request arrives, by the first root hook, so every answer after it carries them:
 * the route's, the 404 handler's, and an error's (Fastify's error path keeps headers already set
 * but for content-type and content-length). Not an onSend hook: with none, Fastify skips its
 * onSend hook runner for every answer (docs/performance.md, "What is close to its target").
 * Guarded by test/http/response-headers.test.ts and the hostile-input suite.
 */
export function installCommonHeaders(app: FastifyInstance, issuer: string): void {
  const hsts = usesHsts(issuer);
  app.addHook('onRequest', (request, reply, done) => {
    setCommonHeaders(reply, request.id, hsts);
    done();
  });
}
