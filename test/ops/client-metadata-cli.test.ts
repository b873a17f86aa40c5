/**
 * `schoolauth client block|trust|clear-rule|rules` (docs/decisions.md "Client ID Metadata Documents"): the operator's say over client_id
 * URLs and domains. A wrong argument exits 2 with one line; a block revokes the grants of the
 * clients it covers; every change is audited.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Storage } from '../../src/storage/connect.js';
import { DIALECTS } from '../helpers/app.js';
import { type CliDatabase, cli, cliDatabase } from '../helpers/cli.js';
import { addAccount, addClient, addGrant, addToken } from './fixtures.js';

for (const dialect of DIALECTS) {
  describe(`schoolauth client block, trust, clear-rule and rules [${dialect}]`, () => {
    let db: CliDatabase;
    let url: string;
    let storage: Storage;
    before(async () => {
      db = await cliDatabase(dialect);
      ({ url, storage } = db);
    });
    after(() => db.close());

    const rules = async () => (await cli(url, ['client', 'rules'])).stdout;

    it('wrong arguments exit 2 with one line saying what to type', async () => {
      for (const argv of [
        ['client', 'block'],
        ['client', 'block', '--client-id', 'https://a.example.com/c.json', '--domain', 'example.com'],
        ['client', 'trust', '--client-id', 'http://a.example.com/c.json'],
        ['client', 'trust', '--client-id', 'https://a.example.com'],
        ['client', 'block', '--domain', 'com'],
        ['client', 'block', '--domain', 'example.com..'],
        ['client', 'block', '--domain', '*.example.com'],
        ['client', 'clear-rule'],
        ['client', 'list', '--kind', 'bogus'],
      ]) {
        const r = await cli(url, argv);
        assert.equal(r.code, 2, argv.join(' '));
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /^schoolauth: /);
      }
      assert.equal(await rules(), '(none)\n');
    });

    it('block revokes the grants and tokens of every client it covers, and only those', async () => {
      const db = storage.db;
      const now = Math.floor(Date.now() / 1000);
      const account = await addAccount(db, now);
      const covered = await addClient(
        db,
        'metadata_document',
        now,
        null,
        'https://agent.blocked.example/client.json',
      );
      const sibling = await addClient(db, 'metadata_document', now, null, 'https://blocked.example/c.json');
      const other = await addClient(
        db,
        'metadata_document',
        now,
        null,
        'https://notblocked.example/client.json',
      );
      const grants = await Promise.all([covered, sibling, other].map((c) => addGrant(db, account, c, now)));
      const token = await addToken(
        db,
        'refresh_tokens',
        { id: grants[0]!, accountId: account, clientId: covered },
        now,
        now + 3600,
      );

      const r = await cli(url, ['client', 'block', '--domain', 'blocked.example']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        'blocked blocked.example (and subdomains); 2 grant(s) and their tokens revoked\n',
      );
      const revoked = await db.selectFrom('grants').select(['id', 'revoked_at']).execute();
      const isRevoked = (id: string) => revoked.find((g) => g.id === id)!.revoked_at !== null;
      assert.ok(isRevoked(grants[0]!) && isRevoked(grants[1]!));
      assert.ok(!isRevoked(grants[2]!), 'a look-alike domain is not covered');
      const refresh = await db
        .selectFrom('refresh_tokens')
        .select('revoked_at')
        .where('token_hash', '=', token)
        .executeTakeFirstOrThrow();
      assert.notEqual(refresh.revoked_at, null);
      const disabled = await db
        .selectFrom('clients')
        .select('disabled')
        .where('id', '=', covered)
        .executeTakeFirstOrThrow();
      assert.equal(
        disabled.disabled,
        0,
        'the rule, not the flag, keeps it out: clearing the rule lets it back in',
      );
      assert.match(await rules(), /block\s+domain\s+blocked\.example/);
      const audit = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'client_metadata.rule_set')
        .execute();
      assert.deepEqual(JSON.parse(audit.at(-1)!.detail), {
        target_kind: 'domain',
        target: 'blocked.example',
        decision: 'block',
        grants_revoked: 2,
      });
    });

    it('block and trust take a domain in any spelling (final dot, upper case, an IDN) and keep it as one host', async () => {
      const db = storage.db;
      const now = Math.floor(Date.now() / 1000);
      const account = await addAccount(db, now);
      // A row kept from before client_id URLs with a final dot were refused.
      const dotted = await addClient(
        db,
        'metadata_document',
        now,
        null,
        'https://rt-blocked.example./client.json',
      );
      const grant = await addGrant(db, account, dotted, now);
      let r = await cli(url, ['client', 'block', '--domain', 'RT-Blocked.Example.']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        'blocked rt-blocked.example (and subdomains); 1 grant(s) and their tokens revoked\n',
      );
      const row = await db
        .selectFrom('grants')
        .select('revoked_at')
        .where('id', '=', grant)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.revoked_at, null);
      r = await cli(url, ['client', 'trust', '--domain', 'Bücher.example.']);
      assert.equal(r.code, 0, r.stderr);
      const listed = await rules();
      assert.match(listed, /block\s+domain\s+rt-blocked\.example\s/);
      assert.match(listed, /trust\s+domain\s+xn--bcher-kva\.example\s/);
      r = await cli(url, ['client', 'clear-rule', '--domain', 'xn--bcher-kva.example']);
      assert.equal(r.code, 0, r.stderr);
      r = await cli(url, ['client', 'clear-rule', '--domain', 'rt-blocked.example.']);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(await rules(), /rt-blocked|bcher/);
    });

    it('a client_id URL with a final dot is refused, naming the URL to give instead', async () => {
      const r = await cli(url, ['client', 'block', '--client-id', 'https://rt-blocked.example./client.json']);
      assert.equal(r.code, 2);
      assert.match(
        r.stderr,
        /names its host with a final dot; use "https:\/\/rt-blocked\.example\/client\.json"/,
      );
    });

    it('trust registers a client_id URL as an integration; a later block replaces it; clear-rule removes it', async () => {
      const id = 'https://vscode.example/oauth/client.json';
      let r = await cli(url, ['client', 'trust', '--client-id', id]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stdout,
        /^trusted https:\/\/vscode\.example\/oauth\/client\.json: registered integration/,
      );
      assert.match(await rules(), /trust\s+client_id\s+https:\/\/vscode\.example\/oauth\/client\.json/);
      r = await cli(url, ['client', 'block', '--client-id', id]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(await rules(), /block\s+client_id\s+https:\/\/vscode\.example/);
      assert.doesNotMatch(await rules(), /trust\s+client_id/);
      r = await cli(url, ['client', 'clear-rule', '--client-id', id]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(await rules(), /vscode\.example/);
      r = await cli(url, ['client', 'clear-rule', '--client-id', id]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /no rule for https:\/\/vscode\.example\/oauth\/client\.json/);
      // Through the CLI: this process's own SQLite connection shows another connection's commits
      // only from its next turn on (src/storage/sqlite/driver.ts).
      const audit = await cli(url, ['audit', 'list', '--client', id]);
      const kinds = [...audit.stdout.matchAll(/client_metadata\.rule_\w+/g)].map((m) => m[0]);
      assert.deepEqual(kinds, [
        'client_metadata.rule_cleared',
        'client_metadata.rule_set',
        'client_metadata.rule_set',
      ]);
    });

    it('client list --kind metadata_document lists the clients known from a document', async () => {
      const r = await cli(url, ['client', 'list', '--kind', 'metadata_document']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /https:\/\/agent\.blocked\.example\/client\.json .* metadata_document/);
      assert.doesNotMatch(r.stdout, /\bintegration\b/);
    });
  });
}
