/**
 * Issue 20: Debian's Python OAuth clients, authlib and requests-oauthlib, run with their defaults
 * against a listening server: both authenticate with HTTP Basic (client_secret_basic, RFC 6749
 * §2.3.1) on the first try, whichever secret method the client registered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ClientProcess,
  debianSkip,
  type LoggedServer,
  signInAndReturn,
  startLoggedServer,
} from '../helpers/debian-clients.js';
import { createPerson, type Person } from '../helpers/flow.js';

const CLIENTS = fileURLToPath(new URL('./clients/', import.meta.url));
// Debian's interpreter: python3-* packages install for /usr/bin/python3 only.
const PYTHON = '/usr/bin/python3';

async function runFlow(server: LoggedServer, person: Person, script: string, env: NodeJS.ProcessEnv = {}) {
  const child = new ClientProcess(PYTHON, [`${CLIENTS}${script}`, server.url], {
    cwd: CLIENTS,
    env: { PATH: process.env.PATH, PYTHONDONTWRITEBYTECODE: '1', ...env },
  });
  try {
    const authorize = await child.waitFor(/^AUTHORIZE (\S+)$/m);
    const returned = await signInAndReturn(server, authorize[1]!, person);
    assert.equal(returned.status, 200, returned.body);
    const result = await child.waitFor(/^RESULT (.+)$/m);
    assert.equal(await child.exited, 0, child.output());
    return JSON.parse(result[1]!);
  } finally {
    child.kill();
  }
}

describe('interop: Debian python3-authlib and python3-requests-oauthlib', {
  skip: debianSkip(['python3-authlib', 'python3-requests-oauthlib']),
}, () => {
  let server: LoggedServer;
  let person: Person;
  before(async () => {
    server = await startLoggedServer();
    person = await createPerson(server.t.ctx.store);
  });
  after(() => server.close());

  it('authlib: Basic by default for a client registered with client_secret_post, offline_access asked, refresh, introspect, revoke', {
    timeout: 60_000,
  }, async () => {
    const result = await runFlow(server, person, 'authlib_flow.py');
    assert.equal(result.auth_method, 'client_secret_basic');
    // offline_access is accepted and ignored: every grant gets a refresh token (OIDC Core §11).
    assert.equal(result.scope, 'openid profile');
    assert.equal(result.refreshed_scope, 'openid profile');
    assert.equal(result.userinfo_sub, person.account.id);
    assert.equal(result.rotated, true);
    assert.equal(result.introspection.active, true);
    assert.equal(result.revocation_status, 200);
    assert.deepEqual(
      server.refused('/api/oauth/'),
      [],
      'every client-authenticated request succeeded first time',
    );
  });

  it('requests-oauthlib: Basic by default, a path-less loopback redirect URI, refresh', {
    timeout: 60_000,
  }, async () => {
    const result = await runFlow(server, person, 'requests_oauthlib_flow.py', {
      OAUTHLIB_INSECURE_TRANSPORT: '1',
    });
    assert.equal(result.scope, 'openid profile');
    assert.equal(result.userinfo_sub, person.account.id);
    assert.equal(result.rotated, true);
    assert.deepEqual(server.refused('/api/oauth/'), []);
  });
});
