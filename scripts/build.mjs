#!/usr/bin/env node
// `npm run build` (always) and the `prepare` step of `npm install` / `npm ci` (`--if-stale`:
// only when dist/ is missing or older than the sources; an install without dev dependencies, so
// without TypeScript, is not failed for it: `npm start` says what is missing). See build-state.mjs.
import { build, buildIsCurrent, typescriptCompiler } from './build-state.mjs';

const ifStale = process.argv.includes('--if-stale');
if (!(ifStale && (buildIsCurrent() || !typescriptCompiler()))) {
  process.exitCode = build() ? 0 : 1;
}
