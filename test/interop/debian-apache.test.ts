/**
 * Issue 20: Debian's Apache modules against a listening server, one apache2 process (non-root,
 * loopback port, generated config in a temp dir):
 * - mod_auth_openidc (libapache2-mod-auth-openidc 2.4.12) as the relying party of /protected/:
 *   discovery, authorization code with PKCE, code exchange with the client authentication it
 *   picks from the metadata, ID token validation, UserInfo, refresh;
 * - mod_oauth2 (libapache2-mod-oauth2 3.3.1) as the resource server of /api/: bearer tokens checked
 *   by introspection (RFC 7662) with client_secret_basic, as its sample configuration does.
 * One non-default: OIDCPKCEMethod S256 (mod_auth_openidc sends no PKCE unless told; PKCE S256 is
 * required here, docs/decisions.md "What the customer's interface description fixes").
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../helpers/app.js';
import { debianSkip, type LoggedServer, startLoggedServer } from '../helpers/debian-clients.js';
import { authorizeViaPages, Browser, createPerson, type Person } from '../helpers/flow.js';
import { register } from '../helpers/oauth.js';

const MODULES = '/usr/lib/apache2/modules';
/** Debian's nobody / nogroup: apache2 runs unprivileged when the test runs as root. */
const NOBODY = 65534;

interface Client {
  readonly client_id: string;
  readonly client_secret?: string;
}

function apacheConfig(dir: string, port: number, issuer: string, rp: Client, rs: Client): string {
  const site = `http://127.0.0.1:${port}`;
  const load = (name: string, file = `mod_${name}.so`) => `LoadModule ${name}_module ${MODULES}/${file}`;
  return `ServerRoot ${dir}
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile ${dir}/httpd.pid
ErrorLog ${dir}/error.log
LogLevel warn
${load('mpm_event')}
${load('authz_core')}
${load('authn_core')}
${load('authz_user')}
${load('dir')}
${load('auth_openidc')}
${load('oauth2')}
DocumentRoot ${dir}/htdocs
DirectoryIndex index.html

OIDCProviderMetadataURL ${issuer}/.well-known/openid-configuration
OIDCClientID ${rp.client_id}
OIDCClientSecret ${rp.client_secret}
OIDCRedirectURI ${site}/protected/redirect_uri
OIDCCryptoPassphrase ${randomBytes(32).toString('hex')}
OIDCScope "openid profile email"
OIDCPKCEMethod S256
OIDCInfoHook access_token id_token userinfo refresh_token
<Location /protected>
  AuthType openid-connect
  Require valid-user
</Location>

<Location /api>
  AuthType oauth2
  OAuth2TokenVerify introspect ${issuer}/api/oauth/introspect introspect.auth=client_secret_basic&client_id=${rs.client_id}&client_secret=${rs.client_secret}&expiry=1
  Require valid-user
</Location>
`;
}

/** A page request as a browser navigates (fetch marks itself Sec-Fetch-Mode: cors, an XHR to the module). */
function navigate(
  browser: Browser,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const cookie = browser.cookieHeader();
    const req = request(
      url,
      { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}), ...headers } },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => {
          browser.store(res.headers['set-cookie'] ?? []);
          resolve({ status: res.statusCode!, location: res.headers.location, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function startApache(dir: string, port: number): Promise<ChildProcess> {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  const child = spawn('/usr/sbin/apache2', ['-X', '-f', join(dir, 'httpd.conf')], {
    stdio: 'ignore',
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) break;
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`apache2 did not start:\n${readFileSync(join(dir, 'error.log'), 'utf8')}`);
}

describe('interop: Debian apache2 with libapache2-mod-auth-openidc and libapache2-mod-oauth2', {
  skip: debianSkip(['apache2', 'libapache2-mod-auth-openidc', 'libapache2-mod-oauth2']),
}, () => {
  let server: LoggedServer;
  let person: Person;
  let dir: string;
  let site: string;
  let apache: ChildProcess;
  let rp: Client;
  before(async () => {
    server = await startLoggedServer();
    person = await createPerson(server.t.ctx.store);
    const port = await freePort();
    site = `http://127.0.0.1:${port}`;
    // The relying party registers its callback with the secret method of RFC 7591's default.
    rp = await register(server.t, {
      client_name: 'Apache mod_auth_openidc',
      redirect_uris: [`${site}/protected/redirect_uri`],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    dir = mkdtempSync(join(tmpdir(), 'schoolauth-apache-'));
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'htdocs', 'protected'), { recursive: true });
    mkdirSync(join(dir, 'htdocs', 'api'), { recursive: true });
    writeFileSync(join(dir, 'htdocs', 'protected', 'index.html'), 'members area\n');
    writeFileSync(join(dir, 'htdocs', 'api', 'index.html'), 'api answer\n');
    // mod_oauth2 introspects with the relying party's credentials: a client may introspect its own tokens.
    writeFileSync(join(dir, 'httpd.conf'), apacheConfig(dir, port, server.url, rp, rp));
    apache = await startApache(dir, port);
  });
  after(async () => {
    apache?.kill('SIGKILL');
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('mod_auth_openidc signs the person in and refreshes; mod_oauth2 accepts the access token by introspection', {
    timeout: 60_000,
  }, async () => {
    // One cookie jar for both origins; its base URL resolves the sign-in and consent forms.
    const browser = new Browser(server.url);
    const start = await navigate(browser, `${site}/protected/`);
    assert.equal(start.status, 302, start.body);
    const authorize = new URL(start.location!);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    const callback = await authorizeViaPages({
      baseUrl: server.url,
      params: Object.fromEntries(authorize.searchParams),
      email: person.email,
      password: person.password,
      decision: 'allow',
      browser,
    });
    const back = await navigate(browser, callback.href);
    assert.equal(back.status, 302, back.body);
    const page = await navigate(browser, `${site}/protected/`);
    assert.equal(page.status, 200);
    assert.equal(page.body, 'members area\n');

    const info = await navigate(browser, `${site}/protected/redirect_uri?info=json`, {
      accept: 'application/json',
    });
    assert.equal(info.status, 200, info.body);
    const session = JSON.parse(info.body);
    assert.equal(session.id_token.sub, person.account.id);
    assert.equal(session.userinfo.sub, person.account.id);
    assert.match(session.access_token, /^sa_at_/);

    // The info hook refreshes the access token when asked to (refresh grant, HTTP Basic).
    const refreshed = await navigate(
      browser,
      `${site}/protected/redirect_uri?info=json&access_token_refresh_interval=0`,
      { accept: 'application/json' },
    );
    assert.equal(refreshed.status, 200, refreshed.body);
    const renewed = JSON.parse(refreshed.body);
    assert.match(renewed.access_token, /^sa_at_/);
    assert.notEqual(renewed.access_token, session.access_token);
    assert.notEqual(renewed.refresh_token, session.refresh_token);

    const api = (token?: string) =>
      navigate(new Browser(site), `${site}/api/`, token ? { authorization: `Bearer ${token}` } : {});
    const allowed = await api(renewed.access_token);
    assert.equal(allowed.status, 200, allowed.body);
    assert.equal(allowed.body, 'api answer\n');
    assert.equal((await api('sa_at_not-a-token')).status, 401);
    assert.equal((await api()).status, 401);
    assert.deepEqual(
      server.refused('/api/oauth/'),
      [],
      'token and introspection requests succeeded first time',
    );
  });
});
