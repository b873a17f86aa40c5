/**
 * /auth.md is followed literally: its `sh` blocks run in order in bash (curl, openssl) against a
 * listening server. The test stands in for the person only where the document says to: it opens
 * the printed authorization URL (driving the sign-in and consent pages) and pastes the values
 * the document marks <LIKE_THIS> from the previous answers.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, createPerson, type Person } from '../helpers/flow.js';

const run = promisify(execFile);

/** What a person copies from an answer: the JSON fields the placeholders name. */
const COPIED_FIELDS = ['client_id', 'access_token', 'refresh_token'];

interface Walk {
  readonly outputs: string[];
  readonly values: Map<string, string>;
}

function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
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

async function followDocument(t: TestApp, person: Person, markdown: string): Promise<Walk> {
  const dir = mkdtempSync(join(tmpdir(), 'auth-md-'));
  const state = join(dir, 'state.sh');
  writeFileSync(state, '');
  const assigned = new Set<string>();
  const walk: Walk = { outputs: [], values: new Map() };
  for (const block of codeBlocks(markdown)) {
    const script = block.replace(/<([A-Z_]+)>/g, (_, name: string) => {
      const value = walk.values.get(name);
      assert.ok(value, `the document asks for <${name}> before any answer gave it`);
      return value;
    });
    for (const m of block.matchAll(/^([A-Z_]+)=/gm)) assigned.add(m[1]!);
    const save = assigned.size > 0 ? `declare -p ${[...assigned].join(' ')} > '${state}'` : '';
    const { stdout } = await run('bash', ['-c', `set -e\nsource '${state}'\n${script}\n${save}`], {
      timeout: 10_000,
    });
    walk.outputs.push(stdout);
    learnFromJson(stdout, walk.values);
    const authorizeUrl = stdout.split('\n').find((line) => line.includes('/oauth/authorize?'));
    if (authorizeUrl) {
      const url = new URL(authorizeUrl);
      const redirect = await authorizeViaPages({
        baseUrl: t.url,
        params: Object.fromEntries(url.searchParams),
        email: person.email,
        password: person.password,
        decision: 'allow',
      });
      assert.equal(redirect.searchParams.get('iss'), t.url);
      assert.equal(redirect.searchParams.get('state'), url.searchParams.get('state'));
      walk.values.set('CODE', redirect.searchParams.get('code')!);
    }
  }
  return walk;
}

for (const dialect of DIALECTS) {
  describe(`/auth.md walkthrough [${dialect}]`, () => {
    let t: TestApp;
    let markdown: string;
    before(async () => {
      t = await createTestApp(dialect, { listen: true });
      const res = await fetch(`${t.url}/auth.md`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
      markdown = await res.text();
    });
    after(() => t.close());

    it('names the real base URL and every step of seed §5', () => {
      assert.ok(markdown.includes(`BASE_URL='${t.url}'`));
      for (const step of [
        'Discover',
        'Register',
        'PKCE',
        'authorize',
        'Exchange',
        'Call the API',
        'Refresh',
        'revoke',
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

    it('pasting its commands gets from nothing to an API call, a refresh and a revocation', async () => {
      const person = await createPerson(t.ctx.db, { now: t.clock.now() });
      const walk = await followDocument(t, person, markdown);
      const all = walk.outputs.join('\n');
      const [discover, register, , , , , exchange, , call, refresh, , revoke] = walk.outputs;
      assert.match(discover!, new RegExp(`"authorization_servers":\\["${t.url}"\\]`));
      assert.ok(JSON.parse(register!).client_id);
      const tokens = JSON.parse(exchange!);
      assert.equal(tokens.token_type, 'Bearer');
      assert.ok(tokens.id_token, 'openid was requested');
      const [account, userinfo] = call!
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(account.email, person.email);
      assert.equal(userinfo.sub, person.account.id);
      const refreshed = JSON.parse(refresh!);
      assert.notEqual(refreshed.access_token, tokens.access_token);
      const [status, afterRevoke] = revoke!.trim().split('\n');
      assert.equal(status, '200');
      assert.equal(JSON.parse(afterRevoke!).error, 'invalid_token');
      assert.doesNotMatch(all, /"error":"(?!invalid_token)/, 'no step failed');
    });
  });
}
