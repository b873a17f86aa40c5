#!/usr/bin/env node
// `npm start`: the compiled server (dist/src/main.js), built first only when a source is newer
// than the build. Before building, the configuration is checked from the sources, so a bad
// variable is answered at once (exit 2) rather than after a compile.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, buildIsCurrent, ROOT } from './build-state.mjs';

async function checkConfiguration() {
  const { tsImport } = await import('tsx/esm/api');
  const { ConfigError, loadConfig } = await tsImport('../src/config.ts', import.meta.url);
  try {
    loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`schoolauth: ${error.message}\n`);
    process.exit(2);
  }
}

if (!buildIsCurrent()) {
  await checkConfiguration();
  process.stderr.write('schoolauth: compiling TypeScript (src/ is newer than dist/)…\n');
  if (!build()) process.exit(1);
}
await import(pathToFileURL(join(ROOT, 'dist/src/main.js')).href);
