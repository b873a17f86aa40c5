#!/usr/bin/env node
// The operator CLI. Runs the compiled code when it exists (npm start builds it), else the sources via tsx.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist/src/cli/main.js');
if (existsSync(compiled) && !process.env.SCHOOLAUTH_FROM_SOURCE) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src/cli/main.ts')).href);
}
