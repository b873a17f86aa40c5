/**
 * Graceful shutdown on SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish
 * (a request that arrives meanwhile on a connection already open is served too, with
 * `Connection: close`; idle connections are closed; closing the app also sends its last
 * rate-limit counts on PostgreSQL), stop background jobs, close the database, exit 0. After
 * SHUTDOWN_TIMEOUT seconds the remaining connections are cut and the process exits 1.
 */
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export interface Stoppable {
  stop(): Promise<void>;
}

export interface ShutdownParts {
  readonly app: FastifyInstance;
  readonly ctx: AppContext;
  readonly jobs: readonly Stoppable[];
  readonly metricsServer?: Server | undefined;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export function installGracefulShutdown(parts: ShutdownParts): void {
  const { app, ctx } = parts;
  let closing = false;
  // Requests that start while closing (on a kept-alive connection) tell the client to reconnect
  // elsewhere: `Connection: close` after their response.
  app.server.on('request', (_req, res) => {
    if (closing) res.shouldKeepAlive = false;
  });
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // A connection whose request finishes after close() began turns idle and would otherwise wait
    // for the keep-alive timeout: close idle connections as they appear.
    const sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
    sweeper.unref();
    const deadline = setTimeout(() => {
      app.log.warn(
        { timeout: ctx.config.shutdownTimeout },
        'shutdown timeout: cutting remaining connections',
      );
      app.server.closeAllConnections();
      parts.metricsServer?.closeAllConnections();
      void ctx.storage.close().finally(() => process.exit(1));
    }, ctx.config.shutdownTimeout * 1000);
    deadline.unref();
    try {
      await app.close();
      await Promise.all(parts.jobs.map((job) => job.stop()));
      if (parts.metricsServer) await closeServer(parts.metricsServer);
      await ctx.storage.close();
      app.log.info('shut down');
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
