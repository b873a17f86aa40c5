/**
 * Issue 20: Debian's git-credential-oauth 0.4.2, configured as its README says for a host it does
 * not know (git config credential.<url>.oauthClientId / oauthAuthURL / oauthTokenURL /
 * oauthScopes) with a public client registered for the path-less http://127.0.0.1. Registration,
 * the authorization on an ephemeral port and the redirect work; the code exchange fails for the
 * client's own reason: its code_verifier is padded base64 ("="), which RFC 7636 §4.1 forbids.
 * What is tested is our answer: invalid_grant saying what is wrong with the verifier, on both
 * attempts of x/oauth2's client authentication probe (Basic first, then the body).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { register } from '../helpers/oauth.js';

describe('interop: Debian git-credential-oauth', {
  skip: debianSkip(['git-credential-oauth', 'git']),
}, () => {
  let server: LoggedServer;
  let person: Person;
  let home: string;
  before(async () => {
    server = await startLoggedServer();
    person = await createPerson(server.t.ctx.store);
    home = mkdtempSync(join(tmpdir(), 'schoolauth-git-credential-oauth-'));
  });
  after(async () => {
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('registers and authorizes with http://127.0.0.1; the exchange answers invalid_grant naming the "=" of its verifier', {
    timeout: 60_000,
  }, async () => {
    const client = await register(server.t, {
      client_name: 'git-credential-oauth',
      redirect_uris: ['http://127.0.0.1'],
    });
    writeFileSync(
      join(home, '.gitconfig'),
      `[credential "${server.url}"]
\toauthClientId = ${client.client_id}
\toauthAuthURL = /oauth/authorize
\toauthTokenURL = /api/oauth/token
\toauthScopes = openid profile
`,
    );
    // The test is the browser: the helper's browser launcher ("open"; "xdg-open" in later
    // versions) only has to succeed, since 0.4.2 stops when it fails.
    const bin = join(home, 'bin');
    mkdirSync(bin);
    for (const opener of ['open', 'xdg-open']) {
      writeFileSync(join(bin, opener), '#!/bin/sh\nexit 0\n');
      chmodSync(join(bin, opener), 0o755);
    }
    const host = new URL(server.url).host;
    const helper = new ClientProcess('/usr/bin/git-credential-oauth', ['get'], {
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
      input: `protocol=http\nhost=${host}\n\n`,
    });
    try {
      const authorize = new URL((await helper.waitFor(/^(http:\S+\/oauth\/authorize\?\S+)$/m))[1]!);
      assert.match(authorize.searchParams.get('redirect_uri')!, /^http:\/\/127\.0\.0\.1:\d+$/);
      const returned = await signInAndReturn(server, authorize.href, person);
      assert.equal(returned.status, 200, returned.body);
      assert.ok(returned.redirect.searchParams.get('code'), 'the authorization succeeded');
      assert.notEqual(await helper.exited, 0);
      assert.match(helper.output(), /"error":"invalid_grant"/);
      assert.match(
        helper.output(),
        /code_verifier contains characters a verifier may not have \((\\"[=+/]\\"(, )?)+\); RFC 7636 §4\.1 allows/,
      );
      assert.deepEqual(server.refused('/api/oauth/token'), ['400 /api/oauth/token', '400 /api/oauth/token']);
      assert.deepEqual(server.refused('/api/oauth/register'), []);
    } finally {
      helper.kill();
    }
  });
});
