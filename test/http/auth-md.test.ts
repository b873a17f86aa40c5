/**
 * /auth.md is followed literally: its `sh` blocks run in order in bash (curl, openssl, node)
 * against a listening server, the loopback receiver of step 4 included, which really listens and
 * receives the browser's redirect. The test stands in for the person only where the document says
 * to: it opens the printed authorization URL (driving the sign-in and consent pages, then
 * following the redirect to the receiver, as a browser does) and pastes the values the document
 * marks <LIKE_THIS> from the previous answers. The one change it makes: the redirect URI's port
 * is a free one, since a fixed port may be taken on the machine running the test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/tokens.js';
import { createTestApp, DIALECTS, freePort, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, createPerson, type Person } from '../helpers/flow.js';

/** What a person copies from an answer: the JSON fields the placeholders name. */
const COPIED_FIELDS = ['client_id', 'client_secret', 'access_token', 'refresh_token'];

interface Block {
  /** The info string after the fence: `sh`, `sh confidential`, … */
  readonly kind: string;
  readonly script: string;
}

function codeBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^( *)```(sh(?: [\w-]+)?)\n([\s\S]*?)^\1```$/gm)].map((m) => ({
    kind: m[2]!,
    script: m[3]!.replace(new RegExp(`^${m[1]}`, 'gm'), ''),
  }));
}

function learnFromJson(output: string, values: Map<string, string>): void {
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const answer = JSON.parse(line) as Record<string, unknown>;
    for (const field of COPIED_FIELDS) {
      if (typeof answer[field] === 'string') values.set(field.toUpperCase(), answer[field]);
    }
  }
}

/** A person following the document in one shell session: variables persist from block to block. */
class Reader {
  readonly values = new Map<string, string>();
  readonly outputs: Array<{ block: Block; stdout: string }> = [];
  private readonly state: string;
  private readonly assigned = new Set<string>();

  constructor(
    private readonly t: TestApp,
    private readonly person: Person,
  ) {
    this.state = join(mkdtempSync(join(tmpdir(), 'auth-md-')), 'state.sh');
    writeFileSync(this.state, '');
  }

  async paste(block: Block): Promise<string> {
    const script = block.script.replace(/<([A-Z_]+)>/g, (_, name: string) => {
      const value = this.values.get(name);
      assert.ok(value, `the document asks for <${name}> before any answer gave it`);
      return value;
    });
    for (const m of block.script.matchAll(/^([A-Z_]+)=/gm)) this.assigned.add(m[1]!);
    const save = this.assigned.size > 0 ? `declare -p ${[...this.assigned].join(' ')} > '${this.state}'` : '';
    const stdout = await this.run(`set -e\nsource '${this.state}'\n${script}\n${save}`);
    this.outputs.push({ block, stdout });
    learnFromJson(stdout, this.values);
    return stdout;
  }

  /** Runs bash; when it shows an authorization URL, acts as the person's browser. */
  private run(script: string): Promise<string> {
    // Its own process group: the receiver, a grandchild, ends with it.
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const kill = () => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    };
    let stdout = '';
    let stderr = '';
    let browsing: Promise<void> | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /^Open this URL in a browser: (\S+)$/m.exec(stderr)?.[1];
      if (url && !browsing)
        browsing = this.browse(new URL(url)).catch((error: unknown) => {
          kill();
          throw error;
        });
    });
    const timer = setTimeout(kill, 15_000);
    return new Promise((resolve, reject) => {
      child.on('close', async (code) => {
        clearTimeout(timer);
        try {
          await browsing;
          if (code !== 0) throw new Error(`block exited ${code}: ${stderr}\n${script}`);
          resolve(stdout);
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  private async browse(authorize: URL): Promise<void> {
    const redirect = await authorizeViaPages({
      baseUrl: this.t.url,
      params: Object.fromEntries(authorize.searchParams),
      email: this.person.email,
      password: this.person.password,
      decision: 'allow',
    });
    assert.equal(redirect.searchParams.get('iss'), this.t.url);
    // The browser follows the redirect to the receiver the document started.
    const landed = await fetch(redirect);
    assert.equal(landed.status, 200);
    assert.equal(await landed.text(), 'Signed in: you can close this window.');
  }

  /** The output of the first block (of the kind) whose script contains `marker`. */
  output(marker: string, kind = 'sh'): string {
    const found = this.outputs.find((o) => o.block.kind === kind && o.block.script.includes(marker));
    assert.ok(found, `a ${kind} block with ${marker} ran`);
    return found.stdout;
  }
}

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

for (const dialect of DIALECTS) {
  describe(`/auth.md walkthrough [${dialect}]`, () => {
    let t: TestApp;
    let markdown: string;
    let person: Person;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      const res = await fetch(`${t.url}/auth.md`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
      markdown = (await res.text()).replaceAll('127.0.0.1:8765', `127.0.0.1:${await freePort()}`);
      person = await createPerson(t.ctx.store, { now: t.clock.now() });
    });
    after(() => t.close());

    it('names the real base URL, every step of the walkthrough, introspection and both client authentication methods', () => {
      assert.ok(markdown.includes(`BASE_URL='${t.url}'`));
      for (const step of [
        'Discover',
        'Register',
        'PKCE',
        'authorize',
        'Exchange',
        'Call the API',
        'Introspect',
        'Refresh',
        'revoke',
        'client_secret_post',
        'client_secret_basic',
        'RFC 6749 §2.3.1',
        'send the\nsecret with HTTP Basic or in the body, not both',
        '/api/oauth/introspect',
      ]) {
        assert.ok(markdown.includes(step), step);
      }
    });

    it('explains both ways in: dynamic registration and a Client ID Metadata Document', () => {
      assert.match(markdown, /Dynamic registration\*\* \(RFC 7591\)/);
      assert.match(markdown, /### Or: a Client ID Metadata Document/);
      assert.match(markdown, /"client_id_metadata_document_supported": true/);
      assert.match(markdown, /port left out\) accepts any port/);
    });

    it('says which client authentication methods this server accepts, as its metadata does', async () => {
      const metadata = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as {
        token_endpoint_auth_methods_supported: string[];
        introspection_endpoint: string;
      };
      const accepted = metadata.token_endpoint_auth_methods_supported.map((m) => `\`${m}\``).join(', ');
      assert.ok(markdown.includes(`This server accepts ${accepted} (`), accepted);
      assert.equal(metadata.introspection_endpoint, `${t.url}/api/oauth/introspect`);
    });

    it('pasting its commands gets from nothing to an API call, introspection, a refresh and a revocation', async () => {
      const reader = new Reader(t, person);
      for (const block of codeBlocks(markdown).filter((b) => b.kind === 'sh')) await reader.paste(block);
      assert.match(
        reader.output('/.well-known/oauth-protected-resource'),
        new RegExp(`"authorization_servers":\\["${t.url}"\\]`),
      );
      assert.ok(json(reader.output('/api/oauth/register')).client_id);
      assert.match(reader.output('node -e'), /^Received an authorization code\.$/m);
      const tokens = json(reader.output('grant_type=authorization_code'));
      assert.equal(tokens.token_type, 'Bearer');
      assert.ok(tokens.id_token, 'openid was requested');
      const [account, userinfo] = reader
        .output('/api/oauth/userinfo')
        .trim()
        .split('\n')
        .map((line) => json(line));
      assert.equal(account!.email, person.email);
      assert.equal(userinfo!.sub, person.account.id);
      const introspected = json(reader.output('/api/oauth/introspect'));
      assert.equal(introspected.active, true);
      assert.equal(introspected.aud, t.url);
      assert.equal(introspected.token_type, 'Bearer');
      const refreshed = json(reader.output('grant_type=refresh_token'));
      assert.notEqual(refreshed.access_token, tokens.access_token);
      const [status, afterRevoke] = reader.output('/api/oauth/revoke').trim().split('\n');
      assert.equal(status, '200');
      assert.equal(json(afterRevoke!).error, 'invalid_token');
      const all = reader.outputs.map((o) => o.stdout).join('\n');
      assert.doesNotMatch(all, /"error":"(?!invalid_token)/, 'no step failed');
    });

    it('a confidential client following its section registers, authorizes and authenticates as described', async () => {
      const reader = new Reader(t, person);
      const blocks = codeBlocks(markdown);
      const main = (marker: string) => blocks.find((b) => b.kind === 'sh' && b.script.includes(marker))!;
      // Step 1's variables, then the section; "it authorizes exactly as in steps 3 and 4".
      await reader.paste(main("BASE_URL='"));
      await reader.paste(main("REDIRECT_URI='"));
      const confidential = blocks.filter((b) => b.kind === 'sh confidential');
      await reader.paste(confidential[0]!);
      await reader.paste(confidential[1]!);
      assert.match(reader.values.get('CLIENT_SECRET') ?? '', /^sa_cs_/);
      await reader.paste(main('VERIFIER=$('));
      await reader.paste(main('node -e'));
      for (const block of confidential.slice(2)) await reader.paste(block);
      const tokens = json(reader.output('client_secret=$CLIENT_SECRET', 'sh confidential'));
      assert.equal(tokens.token_type, 'Bearer', JSON.stringify(tokens));
      const basic = blocks.find((b) => b.kind === 'sh confidential-basic')!;
      const answer = json(await reader.paste(basic));
      const metadata = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as {
        token_endpoint_auth_methods_supported: string[];
      };
      if (metadata.token_endpoint_auth_methods_supported.includes('client_secret_basic')) {
        assert.ok(answer.access_token, JSON.stringify(answer));
      } else {
        // The document says so: not accepted yet, send the secret in the body.
        assert.ok(markdown.includes('`client_secret_basic` is not among them yet'));
        assert.equal(answer.error, 'invalid_client');
      }
    });

    it('a client following its DPoP section gets DPoP-bound tokens, calls the API with proofs and refreshes with its key', async () => {
      const reader = new Reader(t, person);
      const blocks = codeBlocks(markdown);
      const main = (marker: string) => blocks.find((b) => b.kind === 'sh' && b.script.includes(marker))!;
      for (const marker of ["BASE_URL='", "REDIRECT_URI='", "CLIENT_ID='", 'VERIFIER=$(', 'node -e']) {
        await reader.paste(main(marker));
      }
      for (const block of blocks.filter((b) => b.kind === 'sh dpop')) await reader.paste(block);
      const tokens = json(reader.output('grant_type=authorization_code', 'sh dpop'));
      assert.equal(tokens.token_type, 'DPoP', JSON.stringify(tokens));
      const account = json(reader.output('Authorization: DPoP', 'sh dpop'));
      assert.equal(account.email, person.email, JSON.stringify(account));
      const refreshed = json(reader.output('grant_type=refresh_token', 'sh dpop'));
      assert.equal(refreshed.token_type, 'DPoP', JSON.stringify(refreshed));
      const jkt = (await reader.paste({ kind: 'sh dpop', script: 'node "$DPOP_DIR/proof.js" jkt\n' })).trim();
      const row = await t.ctx.db
        .selectFrom('access_tokens')
        .select('jkt')
        .where('token_hash', '=', hashSecret(String(refreshed.access_token)))
        .executeTakeFirstOrThrow();
      assert.equal(row.jkt, jkt, 'the script prints the thumbprint the server binds to');
    });
  });
}
