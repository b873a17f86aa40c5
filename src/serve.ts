/** The server, once the configuration is known good: storage → app → background jobs → listen. */
import pino from 'pino';
import { createApp } from './app.js';
import { bootstrap } from './bootstrap.js';
import type { Config } from './config.js';
import { systemClock } from './context.js';
import { seedDemoIfEmpty } from './demo/seed.js';
import { prettyStream } from './http/logging.js';
import { startKeySync } from './ops/key-sync.js';
import { startMetricsServer } from './ops/metrics-routes.js';
import { startPruneSchedule } from './ops/prune-schedule.js';
import { installGracefulShutdown } from './ops/shutdown.js';
import { startUpWarnings } from './ops/start-up-warnings.js';
import { startSuccessorErasure } from './ops/successor-erasure.js';

/** Starts serving; resolves once listening (graceful shutdown then owns the process). */
export async function serve(config: Config): Promise<void> {
  const ctx = await bootstrap(config, systemClock, { server: true });
  const demo = config.seedDemo ? await seedDemoIfEmpty(ctx.store.instances, ctx.now()) : undefined;
  // Logs are buffered (4 KiB, flushed every second and at exit): one write per many lines. A write
  // per request line was half the CPU of a metadata GET (docs/performance.md).
  const logStream =
    config.logFormat === 'pretty'
      ? await prettyStream()
      : pino.destination({ dest: 1, minLength: 4096, sync: false, periodicFlush: 1000 });
  const app = await createApp(ctx, { logStream });
  for (const warning of await startUpWarnings(ctx)) app.log.warn(warning.fields, warning.message);
  const jobs = [
    startKeySync(ctx.store, ctx.keys, app.log),
    startPruneSchedule(ctx, app.log),
    startSuccessorErasure(ctx, app.log),
  ];
  const metricsServer =
    config.metricsPort === undefined ? undefined : await startMetricsServer(config.host, config.metricsPort);
  installGracefulShutdown({ app, ctx, jobs, metricsServer });
  await app.listen({ host: config.host, port: config.port });
  if (demo) {
    // Shown once on the terminal, never logged: the operator needs it to sign in the first time.
    process.stdout.write(
      `\nDemo school seeded. Sign in at ${config.issuer} as\n  email:    ${demo.email}\n  password: ${demo.password}\n(shown once; change it with: schoolauth account reset-password --email ${demo.email} --password-stdin)\n\n`,
    );
  }
}
