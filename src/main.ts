/**
 * Entry point: the configuration first, before anything slow (the rest of the server takes over
 * a second to load), then serve.ts. Exit codes: 2 for a configuration error (every bad variable
 * named at once), 1 for any other failure to start.
 */
import { type Config, ConfigError, loadConfig } from './config.js';

/**
 * A port another process listens on: which variable chose it and what to do, instead of Node's
 * bare `listen EADDRINUSE: address already in use 127.0.0.1:3000`.
 */
function portInUse(error: unknown, config: Config | undefined): string | undefined {
  const { code, port, address } = (error ?? {}) as { code?: string; port?: number; address?: string };
  if (code !== 'EADDRINUSE' || port === undefined) return undefined;
  const variable = config?.metricsPort === port && config.port !== port ? 'METRICS_PORT' : 'PORT';
  return `port ${port} on ${address ?? 'this host'} is already in use (another schoolauth server, or another program): stop that process, or set ${variable} to a free port (e.g. ${variable}=${port + 1})`;
}

function fail(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`schoolauth: ${error.message}\n`);
    process.exit(2);
  }
  const message = portInUse(error, config) ?? (error instanceof Error ? error.message : String(error));
  process.stderr.write(`schoolauth: failed to start: ${message}\n`);
  process.exit(1);
}

let config: Config | undefined;
try {
  config = loadConfig();
} catch (error) {
  fail(error);
}
const { serve } = await import('./serve.js');
await serve(config).catch(fail);
