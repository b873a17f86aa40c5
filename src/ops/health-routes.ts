import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { unavailableError } from '../http/error-handler.js';
import { whyUnavailable } from '../storage/unavailable.js';

/** A load balancer's health check must not hang with the database: /readyz answers within this. */
const READY_WITHIN_MS = 2000;

/** The probe, or a rejection once `ms` have passed (the probe itself ends within DATABASE_TIMEOUT). */
function probe(ctx: AppContext, ms: number): Promise<unknown> {
  const query = ctx.store.upkeep.ping();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout expired: the database did not answer /readyz')), ms);
  });
  query.catch(() => undefined);
  return Promise.race([query, late]).finally(() => clearTimeout(timer));
}

export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const ok = { type: 'object', properties: { status: { type: 'string' } } };
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'Liveness', response: { 200: ok } } },
    async () => ({
      status: 'ok',
    }),
  );
  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'Readiness: the database answers', response: { 200: ok } } },
    async () => {
      try {
        await probe(ctx, Math.min(READY_WITHIN_MS, ctx.config.databaseTimeout * 1000));
      } catch (error) {
        // The database's own error, so the log line says what happened; anything else, unreachable.
        throw whyUnavailable(error) ? error : unavailableError('unreachable');
      }
      return { status: 'ready' };
    },
  );
}
