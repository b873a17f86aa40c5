#!/usr/bin/env node
// `npm run build` (always) and the `prepare` step of `npm install` / `npm ci` (`--if-stale`:
// only when dist/ is missing or older than the sources). See build-state.mjs.
import { build, buildIsCurrent } from './build-state.mjs';

if (!(process.argv.includes('--if-stale') && buildIsCurrent())) {
  process.exitCode = build() ? 0 : 1;
}
