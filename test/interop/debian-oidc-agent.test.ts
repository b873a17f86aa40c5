/**
 * Issue 20: Debian's oidc-agent (oidc-agent-cli 4.2.6). oidc-gen registers through the agent
 * (application_type "web", path-less http://localhost:<port> redirect URIs, scope with
 * offline_access added, no token_endpoint_auth_method: a public client here), the agent receives
 * the redirect on its own loopback web server and redeems the code with HTTP Basic and an empty
 * password; oidc-token then hands out the access token and, with --force-new, refreshes it (the
 * refresh request repeats offline_access in its scope).
 *
 * With oidc-gen's own defaults: it also registers its private-use URI scheme redirect
 * (edu.kit.data.oidc-agent:/redirect, RFC 8252 §7.1), which self-registration leaves out while
 * keeping the loopback URIs beside it (docs/decisions.md), and it listens on its default port.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ClientProcess,
  debianSkip,
  type LoggedServer,
  signInAndReturn,
  startLoggedServer,
} from '../helpers/debian-clients.js';
import { createPerson, type Person } from '../helpers/flow.js';

const ACCOUNT = 'schoolauth';

describe('interop: Debian oidc-agent-cli', { skip: debianSkip(['oidc-agent-cli']) }, () => {
  let server: LoggedServer;
  let person: Person;
  let home: string;
  let agent: ClientProcess;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'schoolauth-oidc-agent-'));
    const socket = join(home, 'agent.sock');
    env = { PATH: process.env.PATH, HOME: home, OIDC_SOCK: socket, OIDC_ENCRYPTION_PW: 'interop-test-pw' };
    // Console mode (-d): the agent stays this test's child process.
    agent = new ClientProcess('/usr/bin/oidc-agent', ['-d', '-a', socket], { env, timeoutMs: 90_000 });
    server = await startLoggedServer();
    person = await createPerson(server.t.ctx.store);
    for (let i = 0; i < 100 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(async () => {
    agent?.kill();
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('oidc-gen registers and authorizes; oidc-token gets and refreshes tokens the API accepts', {
    timeout: 90_000,
  }, async () => {
    const gen = new ClientProcess(
      '/usr/bin/oidc-gen',
      [
        `--issuer=${server.url}`,
        '--flow=code',
        '--scope=openid profile',
        '--prompt=none',
        '--pw-env',
        '--no-url-call',
        '--confirm-default',
        ACCOUNT,
      ],
      { env, timeoutMs: 60_000, input: '' },
    );
    try {
      const authorize = new URL((await gen.waitFor(/^(http:\S+\/oauth\/authorize\?\S+)$/m))[1]!);
      assert.match(authorize.searchParams.get('redirect_uri')!, /^http:\/\/localhost:\d+$/);
      assert.equal(authorize.searchParams.get('scope'), 'openid profile offline_access');
      const returned = await signInAndReturn(server, authorize.href, person);
      assert.equal(returned.status, 200, returned.body);
      assert.equal(await gen.exited, 0, gen.output());
      assert.match(gen.output(), /Everything setup correctly/);
    } finally {
      gen.kill();
    }

    const userinfo = async (token: string) => {
      const res = await fetch(`${server.url}/api/oauth/userinfo`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { sub: string }).sub;
    };
    const token = async (...args: string[]) => {
      const child = new ClientProcess('/usr/bin/oidc-token', [...args, ACCOUNT], { env, timeoutMs: 20_000 });
      assert.equal(await child.exited, 0, child.output());
      return child.output().trim();
    };
    const first = await token();
    assert.match(first, /^sa_at_/);
    assert.equal(await userinfo(first), person.account.id);
    const refreshed = await token('--force-new');
    assert.match(refreshed, /^sa_at_/);
    assert.notEqual(refreshed, first);
    assert.equal(await userinfo(refreshed), person.account.id);
    assert.deepEqual(server.refused('/api/oauth/'), []);
  });
});
