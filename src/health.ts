import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from './context.js';
import { OAuthError } from './errors.js';

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
        await sql`select 1`.execute(ctx.db);
      } catch {
        throw new OAuthError('temporarily_unavailable', 'the database is not reachable', 503);
      }
      return { status: 'ready' };
    },
  );
}
