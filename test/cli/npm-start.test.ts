/**
 * Issue 24 §2: `npm start` compiles only when a source is newer than dist/, and checks the
 * configuration before compiling. Run in a small copy of the project (the real start scripts,
 * package.json, tsconfig and src/config.ts, with a two-line src/main.ts), so a build takes a
 * second and the checkout's own dist/ is never touched.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('npm start', () => {
  let project: string;
  const writeMain = (marker: string) =>
    writeFileSync(
      join(project, 'src/main.ts'),
      `const marker: string = '${marker}';\nconsole.log(marker);\n`,
    );
  const start = (env: Record<string, string> = {}) =>
    spawnSync('npm', ['start', '--silent'], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      encoding: 'utf8',
      timeout: 120000,
    });
  const stampTime = () => statSync(join(project, 'dist/.build-stamp')).mtimeMs;

  before(() => {
    project = mkdtempSync(join(tmpdir(), 'sa-start-'));
    for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts']) {
      cpSync(join(ROOT, file), join(project, file), { recursive: true });
    }
    mkdirSync(join(project, 'src'));
    cpSync(join(ROOT, 'src/config.ts'), join(project, 'src/config.ts'));
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
    writeMain('first build');
  });

  it('builds when there is no build, then runs it', () => {
    const r = start();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /compiling TypeScript/);
    assert.equal(r.stdout.trim(), 'first build');
  });

  it('runs the build without compiling while no source is newer', () => {
    const built = stampTime();
    const r = start();
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /compiling/);
    assert.equal(r.stdout.trim(), 'first build');
    assert.equal(stampTime(), built);
  });

  it('a bad variable is answered (exit 2, named) before compiling changed sources', () => {
    writeMain('second build');
    const later = new Date(Date.now() + 5000);
    utimesSync(join(project, 'src/main.ts'), later, later);
    const built = stampTime();
    const r = start({ HOST: '999.1.1.1' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /HOST="999.1.1.1": expected an IP address/);
    assert.doesNotMatch(r.stderr, /compiling/);
    assert.equal(stampTime(), built, 'nothing was built');
  });

  it('compiles again once a source is newer than the build', () => {
    const r = start();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /compiling TypeScript/);
    assert.equal(r.stdout.trim(), 'second build');
  });

  // V8's platform pool (node's default four threads) sized to the cores the server may use, less
  // the loop's: on one core, four collection helpers woken together took the loop's core for about
  // 20 ms of its longest stall (docs/performance.md, "V8's pool on the loop's core").
  it("runs the server with V8's platform pool sized to its cores (--v8-pool-size=0)", () => {
    writeFileSync(join(project, 'src/main.ts'), "console.log(process.execArgv.join(' '));\n");
    const later = new Date(Date.now() + 10000);
    utimesSync(join(project, 'src/main.ts'), later, later);
    const r = start();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /(^| )--v8-pool-size=0( |$)/m);
  });
});
