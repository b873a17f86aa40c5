/**
 * Entry point: the configuration first, before anything slow (the rest of the server takes over
 * a second to load), then serve.ts. Exit codes: 2 for a configuration error (every bad variable
 * named at once), 1 for any other failure to start.
 */
// First, before start-up allocates anything: see the module's comment.
import './ops/keep-tick-maps.js';
import { ConfigError, loadConfig } from './config.js';

function fail(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`schoolauth: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `schoolauth: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  fail(error);
}
const { serve } = await import('./serve.js');
await serve(config).catch(fail);
