/**
 * Issue 20: Debian's golang.org/x/oauth2 and github.com/coreos/go-oidc in a small CLI
 * (clients/go-oidc-cli), built offline from the Debian-packaged sources (GOPATH mode) and run with
 * the libraries' defaults. x/oauth2 probes client authentication with HTTP Basic first; with
 * client_secret_basic supported, no request is refused on the way (a refusal would show here).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  ClientProcess,
  debianSkip,
  type LoggedServer,
  signInAndReturn,
  startLoggedServer,
} from '../helpers/debian-clients.js';
import { createPerson, type Person } from '../helpers/flow.js';

const SOURCE = fileURLToPath(new URL('./clients/go-oidc-cli/', import.meta.url));

/** Builds the CLI once per run, without network: GOPATH mode over Debian's /usr/share/gocode. */
async function buildCli(directory: string): Promise<string> {
  const binary = join(directory, 'go-oidc-cli');
  await promisify(execFile)('/usr/bin/go', ['build', '-o', binary, '.'], {
    cwd: SOURCE,
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      GO111MODULE: 'off',
      GOPATH: '/usr/share/gocode',
      GOFLAGS: '',
      GOPROXY: 'off',
      // Kept between runs on one machine, so later builds only link.
      GOCACHE: join(tmpdir(), 'schoolauth-go-build-cache'),
    },
  });
  return binary;
}

describe('interop: Debian golang-golang-x-oauth2-dev + golang-github-coreos-go-oidc-dev', {
  skip: debianSkip(['golang-go', 'golang-golang-x-oauth2-dev', 'golang-github-coreos-go-oidc-dev']),
}, () => {
  let server: LoggedServer;
  let person: Person;
  let directory: string;
  let binary: string;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'schoolauth-go-'));
    [binary, server] = await Promise.all([buildCli(directory), startLoggedServer()]);
    person = await createPerson(server.t.ctx.store);
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  for (const method of ['client_secret_basic', 'none'] as const) {
    it(`a ${method === 'none' ? 'public' : 'confidential'} client (${method}) completes discovery → registration → PKCE → exchange → ID token → UserInfo → refresh`, {
      timeout: 60_000,
    }, async () => {
      const child = new ClientProcess(binary, [server.url, method]);
      try {
        const authorize = new URL((await child.waitFor(/^AUTHORIZE (\S+)$/m))[1]!);
        // A path-less redirect URI on an ephemeral port, matched against the registered http://127.0.0.1.
        assert.match(authorize.searchParams.get('redirect_uri')!, /^http:\/\/127\.0\.0\.1:\d+$/);
        const returned = await signInAndReturn(server, authorize.href, person);
        assert.equal(returned.status, 200, returned.body);
        const result = JSON.parse((await child.waitFor(/^RESULT (.+)$/m))[1]!);
        assert.equal(result.id_token_sub, person.account.id);
        assert.deepEqual(result.iss, [server.url], 'RFC 9207 iss on the redirect');
        assert.equal(result.userinfo_sub, person.account.id);
        assert.equal(result.scope, 'openid profile email');
        assert.equal(result.rotated, true);
        assert.equal(await child.exited, 0, child.output());
        assert.deepEqual(server.refused('/api/oauth/'), [], 'HTTP Basic worked on the first try');
      } finally {
        child.kill();
      }
    });
  }
});
