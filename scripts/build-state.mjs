/**
 * Whether dist/ is a build of the current sources, and building it. A build leaves
 * dist/.build-stamp, dated when the build started: the build is current while no input (a file
 * or folder under src/, the tsconfig files, package.json) is newer than that stamp. Plain
 * JavaScript, since it runs before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout these scripts belong to. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const STAMP = 'dist/.build-stamp';
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time (ms) of `path` and, for a folder, of everything in it; 0 if missing. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), stats.mtimeMs);
}

/** True when dist/ was built from the sources as they are now. */
export function buildIsCurrent(root = ROOT) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return INPUTS.every((input) => newest(join(root, input)) <= built);
}

/** Where TypeScript's compiler is, or undefined when it is not installed (`npm ci --omit=dev`). */
export function typescriptCompiler(root = ROOT) {
  try {
    return createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/** Compiles src/ to dist/ with tsc; answers false (having said why) when it could not. */
export function build(root = ROOT) {
  const started = new Date();
  const tsc = typescriptCompiler(root);
  if (!tsc) {
    process.stderr.write(
      'schoolauth: dist/ is missing or older than src/, and TypeScript is not installed to build it: run `npm install` (with dev dependencies)\n',
    );
    return false;
  }
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) return false;
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, STAMP), '');
  // Dated when the build started: a source saved while tsc ran is newer, so the next start builds again.
  utimesSync(join(root, STAMP), started, started);
  return true;
}
