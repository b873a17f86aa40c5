#!/usr/bin/env node
// The test command (`npm test`): probes PostgreSQL and Chromium once, then runs every
// test/**/*.test.ts with node's test runner. With CI=true a missing PostgreSQL or Chromium is a
// failure; elsewhere those suites skip with one line saying how to enable them.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import pg from 'pg';

const ci = process.env.CI === 'true' || process.env.CI === '1';
const root = new URL('..', import.meta.url).pathname;

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : findTests(path);
    return name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

async function probePostgres(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const env = { ...process.env };
const pgUrl = env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
if (env.SCHOOLAUTH_TEST_PG !== 'off' && (await probePostgres(pgUrl))) {
  env.SCHOOLAUTH_TEST_PG_URL = pgUrl;
} else if (ci) {
  console.error(`CI=true but PostgreSQL is not reachable at ${pgUrl}: start it or set TEST_DATABASE_URL`);
  process.exit(1);
} else {
  console.log(`PostgreSQL suites skipped: no server at ${pgUrl} (start PostgreSQL or set TEST_DATABASE_URL)`);
}

const chromium = env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(chromium)) {
  env.SCHOOLAUTH_TEST_CHROMIUM = chromium;
} else if (ci) {
  console.error(`CI=true but Chromium is not at ${chromium}: apt-get install chromium, or set CHROMIUM_PATH`);
  process.exit(1);
} else {
  console.log(
    `Browser suites skipped: no Chromium at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
}

// Debian-packaged OAuth clients driven by test/interop/debian-*.test.ts (issue 20): each package
// and a file it installs. The suites read SCHOOLAUTH_TEST_DEBIAN_CLIENTS (the installed ones).
const debianClients = [
  ['python3-authlib', '/usr/lib/python3/dist-packages/authlib/__init__.py'],
  ['python3-requests-oauthlib', '/usr/lib/python3/dist-packages/requests_oauthlib/__init__.py'],
  ['golang-go', '/usr/bin/go'],
  ['golang-golang-x-oauth2-dev', '/usr/share/gocode/src/golang.org/x/oauth2/oauth2.go'],
  ['golang-github-coreos-go-oidc-dev', '/usr/share/gocode/src/github.com/coreos/go-oidc/oidc.go'],
  ['oidc-agent-cli', '/usr/bin/oidc-agent'],
  ['git-credential-oauth', '/usr/bin/git-credential-oauth'],
  ['git', '/usr/bin/git'],
  ['apache2', '/usr/sbin/apache2'],
  ['libapache2-mod-auth-openidc', '/usr/lib/apache2/modules/mod_auth_openidc.so'],
  ['libapache2-mod-oauth2', '/usr/lib/apache2/modules/mod_oauth2.so'],
];
const absentClients = debianClients.filter(([, file]) => !existsSync(file)).map(([name]) => name);
env.SCHOOLAUTH_TEST_DEBIAN_CLIENTS = debianClients
  .map(([name]) => name)
  .filter((name) => !absentClients.includes(name))
  .join(' ');
if (absentClients.length > 0 && ci) {
  console.error(`CI=true but these Debian packages are missing: apt-get install ${absentClients.join(' ')}`);
  process.exit(1);
} else if (absentClients.length > 0) {
  console.log(
    `Debian client interop suites skip what needs: ${absentClients.join(' ')} (apt-get install them)`,
  );
}

const args = process.argv.slice(2);
const files = args.length > 0 ? args : findTests(join(root, 'test')).sort();
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { cwd: root, env, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
