import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/tokens.js';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { DIALECTS } from '../helpers/app.js';
import { type CliDatabase, cli, cliDatabase } from '../helpers/cli.js';
import { addAccount, addClient, addGrant, addToken } from './fixtures.js';

for (const dialect of DIALECTS) {
  describe(`schoolauth client, prune and audit commands [${dialect}]`, () => {
    let db: CliDatabase;
    let url: string;
    let storage: Storage;
    before(async () => {
      db = await cliDatabase(dialect);
      ({ url, storage } = db);
    });
    after(() => db.close());

    it('client create --confidential prints the client_id and the secret once, stored only hashed', async () => {
      const r = await cli(url, [
        'client',
        'create',
        '--name',
        'Gradebook',
        '--redirect-uri',
        'https://gradebook.example.com/callback',
        '--redirect-uri',
        'http://127.0.0.1:8080/cb',
        '--confidential',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const clientId = /client_id: (\S+)/.exec(r.stdout)?.[1] ?? '';
      const secret = /client_secret: (\S+)/.exec(r.stdout)?.[1] ?? '';
      assert.ok(clientId && secret.startsWith('sa_cs_'));
      const row = await storage.db
        .selectFrom('clients')
        .selectAll()
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
      assert.equal(row.kind, 'integration');
      assert.equal(row.token_endpoint_auth_method, 'client_secret_post');
      assert.equal(row.secret_hash, hashSecret(secret));
      assert.deepEqual(JSON.parse(row.redirect_uris), [
        'https://gradebook.example.com/callback',
        'http://127.0.0.1:8080/cb',
      ]);
      const list = await cli(url, ['client', 'list']);
      assert.equal(list.code, 0);
      assert.match(
        list.stdout,
        new RegExp(`${clientId}\\s+Gradebook\\s+integration\\s+client_secret_post\\s+active`),
      );
      assert.ok(!list.stdout.includes(secret), 'the secret is never shown again');
      const audit = await cli(url, ['audit', 'list', '--client', clientId]);
      assert.match(audit.stdout, /client\.created/);
    });

    it('a public integration gets no secret', async () => {
      const r = await cli(url, [
        'client',
        'create',
        '--name',
        'Viewer',
        '--redirect-uri',
        'https://v.example/cb',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /client_secret/);
    });

    it('accepts path-less loopback redirect URIs (RFC 3986 §6.2.3), as registration does', async () => {
      const r = await cli(url, [
        'client',
        'create',
        '--name',
        'Desk',
        '--redirect-uri',
        'http://127.0.0.1:4242',
        '--redirect-uri',
        'http://127.0.0.1',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const id = /^client_id: (\S+)$/m.exec(r.stdout)?.[1];
      assert.ok(id, r.stdout);
      const listed = await cli(url, ['client', 'list']);
      assert.match(listed.stdout, new RegExp(`${id}.*Desk`));
    });

    it('bad redirect URIs and missing arguments exit 2 with one line', async () => {
      for (const uri of ['http://example.com/cb', 'https://a.example/cb#frag', 'myapp://cb', 'not a url']) {
        const r = await cli(url, ['client', 'create', '--name', 'X', '--redirect-uri', uri]);
        assert.equal(r.code, 2, `${uri}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split('\n').length, 1);
        assert.match(r.stderr, /--redirect-uri/);
      }
      const missing = await cli(url, ['client', 'create', '--name', 'X']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /missing --redirect-uri/);
      const unknown = await cli(url, ['client', 'disable', '--client-id', 'nope']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no client with client_id nope/);
    });

    it('client create --name refuses control, format and separator characters; international names stay unchanged', async () => {
      const create = (name: string) =>
        cli(url, ['client', 'create', '--name', name, '--redirect-uri', 'https://g.example/cb']);
      for (const [name, code] of [
        ['Gradebook\u202e', 'U+202E'],
        ['Grade\u200bbook', 'U+200B'],
        ['Grade\u009bbook', 'U+009B'],
        ['\u2028Gradebook', 'U+2028'],
      ] as const) {
        const r = await create(name);
        assert.equal(r.code, 2, `${code}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split('\n').length, 1);
        assert.match(r.stderr, new RegExp(`--name contains U\\+${code.slice(2)}: control, format`));
      }
      const name = 'Über-App 日本語 Ñandú';
      const ok = await create(name);
      assert.equal(ok.code, 0, ok.stderr);
      const clientId = /client_id: (\S+)/.exec(ok.stdout)?.[1] ?? '';
      const list = await cli(url, ['client', 'list']);
      assert.match(list.stdout, new RegExp(`${clientId}\\s+${name}\\s+integration`));
    });

    it('client create --name refuses a name of only Hangul fillers or Braille blanks', async () => {
      for (const [name, code] of [
        ['\u3164', 'U+3164'],
        ['\u2800\u2800', 'U+2800'],
        ['\uffa0 \u115f', 'U+FFA0'],
      ] as const) {
        const r = await cli(url, [
          'client',
          'create',
          '--name',
          name,
          '--redirect-uri',
          'https://g.example/cb',
        ]);
        assert.equal(r.code, 2, `${code}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split('\n').length, 1);
        assert.match(r.stderr, new RegExp(`--name shows nothing: .*the first is U\\+${code.slice(2)}`));
      }
    });

    it('client create --dpop-bound registers dpop_bound_access_tokens (RFC 9449 §5.2); without it the metadata stays empty', async () => {
      const metadata = async (...more: string[]) => {
        const r = await cli(url, [
          'client',
          'create',
          '--name',
          'Keyed',
          '--redirect-uri',
          'https://k.example/cb',
          ...more,
        ]);
        assert.equal(r.code, 0, r.stderr);
        const id = /client_id: (\S+)/.exec(r.stdout)?.[1] ?? '';
        const fresh = await openStorage(url);
        try {
          return (
            await fresh.db
              .selectFrom('clients')
              .select('metadata')
              .where('id', '=', id)
              .executeTakeFirstOrThrow()
          ).metadata;
        } finally {
          await fresh.close();
        }
      };
      assert.deepEqual(JSON.parse(await metadata('--dpop-bound')), { dpop_bound_access_tokens: true });
      assert.deepEqual(JSON.parse(await metadata()), {});
    });

    it('client create --id-token-alg stores the algorithm of its ID tokens (RS256 when left out); another is refused', async () => {
      const alg = async (...more: string[]) => {
        const r = await cli(url, [
          'client',
          'create',
          '--name',
          'Signer',
          '--redirect-uri',
          'https://s.example/cb',
          ...more,
        ]);
        assert.equal(r.code, 0, r.stderr);
        const id = /client_id: (\S+)/.exec(r.stdout)?.[1] ?? '';
        // A connection of its own: the test's SQLite connection may still read an older snapshot.
        const fresh = await openStorage(url);
        try {
          const row = await fresh.db
            .selectFrom('clients')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          return row.id_token_signed_response_alg;
        } finally {
          await fresh.close();
        }
      };
      assert.equal(await alg(), 'RS256');
      assert.equal(await alg('--id-token-alg', 'ES256'), 'ES256');
      assert.equal(await alg('--id-token-alg', 'EdDSA'), 'EdDSA');
      const bad = await cli(url, [
        'client',
        'create',
        '--name',
        'X',
        '--redirect-uri',
        'https://s.example/cb',
        '--id-token-alg',
        'HS256',
      ]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--id-token-alg must be one of RS256, ES256, EdDSA, not "HS256"/);
    });

    it('client disable revokes its grants and tokens and is audited; client enable lets it in again, its old grants staying revoked', async () => {
      const created = await cli(url, [
        'client',
        'create',
        '--name',
        'Old',
        '--redirect-uri',
        'https://o.example/cb',
      ]);
      const clientId = /client_id: (\S+)/.exec(created.stdout)![1]!;
      const now = Math.floor(Date.now() / 1000);
      const accountId = await addAccount(storage.db, now);
      const grant = { id: await addGrant(storage.db, accountId, clientId, now), accountId, clientId };
      await addToken(storage.db, 'access_tokens', grant, now, now + 3600);
      await addToken(storage.db, 'refresh_tokens', grant, now, now + 86400);

      const r = await cli(url, ['client', 'disable', '--client-id', clientId]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /1 grant\(s\)/);
      const client = await storage.db
        .selectFrom('clients')
        .select('disabled')
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
      assert.equal(client.disabled, 1);
      for (const table of ['access_tokens', 'refresh_tokens'] as const) {
        const rows = await storage.db
          .selectFrom(table)
          .select('revoked_at')
          .where('grant_id', '=', grant.id)
          .execute();
        assert.ok(rows.length === 1 && rows[0]!.revoked_at !== null, table);
      }
      const audit = await cli(url, ['audit', 'list', '--kind', 'client.disabled']);
      assert.match(audit.stdout, new RegExp(clientId));

      const enabled = await cli(url, ['client', 'enable', '--client-id', clientId]);
      assert.equal(enabled.code, 0, enabled.stderr);
      assert.equal(
        enabled.stdout,
        `enabled ${clientId} (Old): it may ask for authorization again; people let it in anew (the grants revoked when it was disabled stay revoked)\n`,
      );
      assert.match(
        (await cli(url, ['client', 'list'])).stdout,
        new RegExp(`${clientId}\\s+Old\\s+\\S+\\s+\\S+\\s+active`),
      );
      const revoked = await storage.db
        .selectFrom('grants')
        .select('revoked_at')
        .where('id', '=', grant.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(revoked.revoked_at, null, 'its old grant stays revoked');
      const again = await cli(url, ['client', 'enable', '--client-id', clientId]);
      assert.equal(again.code, 0);
      assert.equal(again.stdout, `${clientId} (Old) is not disabled; nothing changed\n`);
      const enabledAudit = await cli(url, ['audit', 'list', '--kind', 'client.enabled']);
      assert.equal(enabledAudit.stdout.trim().split('\n').length, 2, 'audited once');
      assert.match(enabledAudit.stdout, new RegExp(clientId));
      const unknown = await cli(url, ['client', 'enable', '--client-id', 'nope']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no client with client_id nope/);
    });

    it('account disable revokes every grant of the account with all their tokens, and no one else’s', async () => {
      const now = Math.floor(Date.now() / 1000);
      const clientId = await addClient(storage.db, 'dynamic', now);
      const accountId = await addAccount(storage.db, now);
      const otherId = await addAccount(storage.db, now);
      const grants = [];
      for (const owner of [accountId, accountId, otherId]) {
        const grant = { id: await addGrant(storage.db, owner, clientId, now), accountId: owner, clientId };
        await addToken(storage.db, 'access_tokens', grant, now, now + 3600);
        await addToken(storage.db, 'refresh_tokens', grant, now, now + 86400);
        grants.push(grant);
      }
      const r = await cli(url, ['account', 'disable', '--email', `${accountId.toLowerCase()}@example.com`]);
      assert.equal(r.code, 0, r.stderr);
      for (const grant of grants) {
        const revoked = grant.accountId === accountId;
        const row = await storage.db
          .selectFrom('grants')
          .select('revoked_at')
          .where('id', '=', grant.id)
          .executeTakeFirstOrThrow();
        assert.equal(row.revoked_at !== null, revoked, `grant of ${revoked ? 'the account' : 'another'}`);
        for (const table of ['access_tokens', 'refresh_tokens'] as const) {
          const rows = await storage.db
            .selectFrom(table)
            .select('revoked_at')
            .where('grant_id', '=', grant.id)
            .execute();
          assert.ok(rows.length === 1 && (rows[0]!.revoked_at !== null) === revoked, table);
        }
      }
    });

    it('prune prints counts; keys rotate and account commands are audited; audit list filters', async () => {
      const pruned = await cli(url, ['prune']);
      assert.equal(pruned.code, 0, pruned.stderr);
      assert.match(
        pruned.stdout,
        /^pruned: \d+ authorization codes, .* \d+ dynamic clients, \d+ device authorizations\n$/,
      );

      assert.equal((await cli(url, ['keys', 'rotate'])).code, 0);
      const create = await cli(
        url,
        [
          'account',
          'create',
          '--email',
          'eve@example.com',
          '--name',
          'Eve',
          '--school',
          's',
          '--school-name',
          'S',
          '--password-stdin',
        ],
        'a long enough password\n',
      );
      assert.equal(create.code, 0, create.stderr);
      await cli(
        url,
        ['account', 'reset-password', '--email', 'eve@example.com', '--password-stdin'],
        'another long one\n',
      );
      await cli(url, ['account', 'disable', '--email', 'eve@example.com']);

      const eve = await cli(url, ['audit', 'list', '--account', 'eve@example.com']);
      assert.equal(eve.code, 0, eve.stderr);
      const kinds = eve.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/\s+/)[1]);
      assert.deepEqual(kinds, ['account.disabled', 'account.password_reset', 'account.created']);
      assert.match(eve.stdout, /eve@example.com/);
      assert.match((await cli(url, ['audit', 'list', '--kind', 'key.rotated'])).stdout, /key\.rotated/);
      const limited = await cli(url, ['audit', 'list', '--limit', '1']);
      assert.equal(limited.stdout.trim().split('\n').length, 2);
      const future = await cli(url, ['audit', 'list', '--since', '2999-01-01T00:00:00Z']);
      assert.equal(future.stdout, '(none)\n');
      const bad = await cli(url, ['audit', 'list', '--since', 'yesterday']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /ISO-8601/);
    });

    it('client create --device without --redirect-uri makes a device-only integration (RFC 8628)', async () => {
      const r = await cli(url, ['client', 'create', '--name', 'Kiosk', '--device']);
      assert.equal(r.code, 0, r.stderr);
      const clientId = /client_id: (\S+)/.exec(r.stdout)?.[1] ?? '';
      const row = await storage.db
        .selectFrom('clients')
        .selectAll()
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(row.grant_types), [
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:device_code',
      ]);
      assert.deepEqual(JSON.parse(row.redirect_uris), []);
    });
  });
}
