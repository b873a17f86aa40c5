#!/usr/bin/env node
// The operator CLI. Runs the compiled code when it is a build of the current sources (npm start and
// npm install build it), else the sources via tsx: a CLI run never waits for a compile, and never
// runs code older than the sources.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIsCurrent, ROOT } from '../scripts/build-state.mjs';

if (buildIsCurrent() && !process.env.SCHOOLAUTH_FROM_SOURCE) {
  await import(pathToFileURL(join(ROOT, 'dist/src/cli/main.js')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(ROOT, 'src/cli/main.ts')).href);
}
