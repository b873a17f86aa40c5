/**
 * Issue 6 §7: crash safety on SQLite. The server is killed with SIGKILL in the middle of a load
 * of registrations, code exchanges and refreshes; after a restart every client, access token and
 * refresh token that was answered to a client still works, and no grant is half-written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStorage } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { authorizeViaPages, Browser, createPerson, pkcePair } from '../helpers/flow.js';
import { assertNothingHalfWritten } from '../helpers/integrity.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';

interface Answered {
  readonly clients: Set<string>;
  readonly accessTokens: string[];
  /** The newest refresh token of each chain, with its client. */
  readonly refreshTokens: Map<string, { clientId: string; token: string }>;
}

const REDIRECT = 'http://127.0.0.1:8765/callback';

async function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function postForm(url: string, form: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

/** One agent's life, repeated: register, authorize, exchange, refresh twice. Records what was answered. */
async function agentLoop(
  server: ServerProcess,
  person: { email: string; password: string },
  answered: Answered,
  stop: () => boolean,
) {
  const browser = new Browser(server.url);
  for (let chain = 0; !stop(); chain++) {
    try {
      const reg = await postJson(`${server.url}/api/oauth/register`, {
        client_name: 'crash agent',
        redirect_uris: [REDIRECT],
      });
      if (reg.status !== 201) continue;
      const clientId = ((await reg.json()) as { client_id: string }).client_id;
      answered.clients.add(clientId);
      const pkce = pkcePair();
      const redirect = await authorizeViaPages({
        baseUrl: server.url,
        browser,
        params: {
          client_id: clientId,
          redirect_uri: REDIRECT,
          scope: 'openid profile',
          code_challenge: pkce.challenge,
          state: 's',
        },
        email: person.email,
        password: person.password,
        decision: 'allow',
      });
      let res = await postForm(`${server.url}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: pkce.verifier,
      });
      const key = `${clientId}:${chain}`;
      for (let i = 0; res.status === 200; i++) {
        const tokens = (await res.json()) as { access_token: string; refresh_token: string };
        answered.accessTokens.push(tokens.access_token);
        answered.refreshTokens.set(key, { clientId, token: tokens.refresh_token });
        if (i === 2 || stop()) break;
        res = await postForm(`${server.url}/api/oauth/token`, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: clientId,
        });
      }
    } catch {
      // The kill interrupts requests mid-flight: an unanswered request promises nothing.
    }
  }
}

describe('crash safety [sqlite]', () => {
  it('after SIGKILL under load, everything answered still works and no grant is half-written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-crash-'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, DATA_DIR: dir };
    const storage = await openStorage(env.DATABASE_URL);
    await migrateToLatest(storage.db);
    const person = await createPerson(storage.store);
    await storage.close();

    const answered: Answered = { clients: new Set(), accessTokens: [], refreshTokens: new Map() };
    let server = await startServer(env);
    let killed = false;
    const agents = Array.from({ length: 6 }, () => agentLoop(server, person, answered, () => killed));
    const started = Date.now();
    while (answered.accessTokens.length < 40 && Date.now() - started < 20000)
      await new Promise((r) => setTimeout(r, 50));
    server.child.kill('SIGKILL');
    killed = true;
    await Promise.all(agents);
    await server.exited;
    assert.ok(answered.accessTokens.length >= 10, `load produced tokens (${answered.accessTokens.length})`);

    // Same port, so the issuer (and with it every token's audience) is the same after the restart.
    server = await startServer({ ...env, PORT: String(server.port) });
    try {
      for (const token of answered.accessTokens) {
        const res = await fetch(`${server.url}/api/oauth/userinfo`, {
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(res.status, 200, `an answered access token works after the crash: ${await res.text()}`);
      }
      for (const { clientId, token } of answered.refreshTokens.values()) {
        const res = await postForm(`${server.url}/api/oauth/token`, {
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: clientId,
        });
        assert.equal(
          res.status,
          200,
          `the newest answered refresh token works after the crash: ${await res.text()}`,
        );
      }
    } finally {
      await server.stop();
    }

    const check = await openStorage(env.DATABASE_URL);
    try {
      const clientIds = new Set(
        (await check.db.selectFrom('clients').select('id').execute()).map((r) => r.id),
      );
      for (const id of answered.clients) assert.ok(clientIds.has(id), `answered client ${id} survived`);
      await assertNothingHalfWritten(check.db);
    } finally {
      await check.close();
    }
  });
});
