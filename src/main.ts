/** Entry point: configuration → storage → app → listen. */
import { createApp } from './app.js';
import { bootstrap } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { seedDemoIfEmpty } from './demo/seed.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`schoolauth: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const ctx = await bootstrap(config);
  const demo = config.seedDemo ? await seedDemoIfEmpty(ctx.db, ctx.now()) : undefined;
  const app = await createApp(ctx);
  await app.listen({ host: config.host, port: config.port });
  if (demo) {
    // Shown once on the terminal, never logged: the operator needs it to sign in the first time.
    process.stdout.write(
      `\nDemo school seeded. Sign in at ${config.issuer} as\n  email:    ${demo.email}\n  password: ${demo.password}\n(shown once; change it with: schoolauth account reset-password --email ${demo.email} --password-stdin)\n\n`,
    );
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), config.shutdownTimeout * 1000);
    timer.unref();
    await app.close();
    await ctx.storage.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `schoolauth: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
