import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/crypto/password.js';
import { openStorage } from '../../src/storage/connect.js';
import { DIALECTS, dropSchema, newSchemaName, PG_URL } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

for (const dialect of DIALECTS) {
  describe(`schoolauth CLI [${dialect}]`, () => {
    let url: string;
    let schema: string | undefined;
    before(() => {
      if (dialect === 'postgres') {
        schema = newSchemaName();
        url = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
      } else {
        url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'sa-cli-')), 'db.sqlite')}`;
      }
    });
    after(async () => {
      if (schema) await dropSchema(schema);
    });

    it('account create makes the school with the account as owner, reading the password from stdin', async () => {
      const password = 'correct horse battery';
      const r = await cli(
        url,
        [
          'account',
          'create',
          '--email',
          'Ada@Example.com',
          '--name',
          'Ada',
          '--school',
          'maths',
          '--password-stdin',
        ],
        `${password}\n`,
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /created account ada@example.com .* in school maths \(new school, as owner\)/);
      assert.ok(!r.stdout.includes(password) && !r.stderr.includes(password), 'the password is never echoed');
      const storage = await openStorage(url);
      try {
        const account = await storage.db
          .selectFrom('accounts')
          .selectAll()
          .where('email', '=', 'ada@example.com')
          .executeTakeFirstOrThrow();
        assert.ok(account.password_hash.startsWith('$argon2id$'), 'stored as an argon2id hash');
        // exactly one trailing newline is stripped
        assert.ok(await verifyPassword(account.password_hash, password));
        const membership = await storage.db
          .selectFrom('memberships')
          .selectAll()
          .where('account_id', '=', account.id)
          .executeTakeFirstOrThrow();
        assert.equal(membership.role, 'owner');
      } finally {
        await storage.close();
      }
    });

    it('a second account in an existing school gets the requested role', async () => {
      const r = await cli(
        url,
        [
          'account',
          'create',
          '--email',
          'bob@example.com',
          '--name',
          'Bob',
          '--school',
          'maths',
          '--password-stdin',
          '--role',
          'admin',
        ],
        'another long password\n\n',
      );
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /new school/);
    });

    it('account list shows accounts without any password material', async () => {
      const r = await cli(url, ['account', 'list']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /ada@example.com/);
      assert.match(r.stdout, /bob@example.com/);
      assert.doesNotMatch(r.stdout, /argon2/);
    });

    it('a duplicate email is refused with exit code 1 and one line', async () => {
      const r = await cli(
        url,
        [
          'account',
          'create',
          '--email',
          'ada@example.com',
          '--name',
          'Ada',
          '--school',
          'maths',
          '--password-stdin',
        ],
        'some long password',
      );
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.match(r.stderr, /already exists/);
    });

    it('a short password is refused and never echoed', async () => {
      const r = await cli(
        url,
        [
          'account',
          'create',
          '--email',
          'c@example.com',
          '--name',
          'C',
          '--school',
          'maths',
          '--password-stdin',
        ],
        'short\n',
      );
      assert.equal(r.code, 1);
      assert.match(r.stderr, /at least 10 characters/);
      assert.doesNotMatch(r.stderr, /short\b(?! )/);
    });

    it('missing or unknown arguments exit 2 with the usage', async () => {
      const missing = await cli(url, ['account', 'create', '--email', 'x@example.com']);
      assert.equal(missing.code, 2);
      assert.match(
        missing.stderr,
        /missing --name; usage: schoolauth account create --email EMAIL --name NAME --school SCHOOL --password-stdin/,
      );
      const unknownFlag = await cli(url, ['school', 'list', '--bogus']);
      assert.equal(unknownFlag.code, 2);
      assert.match(unknownFlag.stderr, /usage: schoolauth school list/);
      const unknownCommand = await cli(url, ['frobnicate']);
      assert.equal(unknownCommand.code, 2);
      assert.match(unknownCommand.stderr, /unknown command "frobnicate"/);
      const badRole = await cli(url, [
        'account',
        'create',
        '--email',
        'x@example.com',
        '--name',
        'X',
        '--school',
        'maths',
        '--password-stdin',
        '--role',
        'god',
      ]);
      assert.equal(badRole.code, 2);
      assert.match(badRole.stderr, /--role must be owner or admin/);
    });

    it('account reset-password changes the hash; account disable marks the account', async () => {
      assert.equal(
        (
          await cli(
            url,
            ['account', 'reset-password', '--email', 'bob@example.com', '--password-stdin'],
            'a brand new password\n',
          )
        ).code,
        0,
      );
      assert.equal((await cli(url, ['account', 'disable', '--email', 'bob@example.com'])).code, 0);
      const list = await cli(url, ['account', 'list']);
      assert.match(list.stdout, /bob@example.com.*disabled/);
      const missing = await cli(url, ['account', 'disable', '--email', 'nobody@example.com']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no account with email nobody@example.com/);
    });

    it('school create and list', async () => {
      assert.equal((await cli(url, ['school', 'create', '--slug', 'art', '--name', 'Art School'])).code, 0);
      const bad = await cli(url, ['school', 'create', '--slug', 'Bad Slug!', '--name', 'x']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /lower-case letters/);
      const list = await cli(url, ['school', 'list']);
      assert.match(list.stdout, /art\s+Art School/);
      assert.match(list.stdout, /maths/);
    });

    it('keys rotate tells when the new key signs and how long the old one stays published; keys list shows each state', async () => {
      const rotate = await cli(url, ['keys', 'rotate']);
      assert.equal(rotate.code, 0, rotate.stderr);
      assert.match(
        rotate.stdout,
        /^new signing key \S+: published now \(every running instance serves it within 5 s\)$/m,
      );
      assert.match(
        rotate.stdout,
        /^it signs ID tokens from \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in 70 s\), once JWKS copies cached for up to 60 s have expired$/m,
      );
      assert.match(
        rotate.stdout,
        /stays published until \S+ \(in 3790 s\), when its last ID tokens have expired$/m,
      );
      assert.doesNotMatch(rotate.stdout, /within seconds/);
      const list = await cli(url, ['keys', 'list']);
      assert.match(list.stdout, /^kid\s+alg\s+state\s+changes\s+created$/m);
      assert.match(list.stdout, /RS256\s+next\s+current at \S+ \(in \d+ s\)/);
      assert.match(list.stdout, /RS256\s+current\s+previous at \S+ \(in \d+ s\)/);
      const again = await cli(url, ['keys', 'rotate']);
      assert.equal(again.code, 1);
      assert.match(
        again.stderr,
        /^schoolauth: signing key \S+ already waits to sign from \S+ \(in \d+ s\); rotate again after that\n$/,
      );
    });

    it('migrate reports an up-to-date schema', async () => {
      const r = await cli(url, ['migrate']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /up to date/);
    });
  });
}

describe('schoolauth binary', () => {
  it('runs as the package bin and exits 2 on wrong usage', () => {
    const result = spawnSync(process.execPath, ['bin/schoolauth.js', 'account', 'create'], {
      env: { ...process.env, SCHOOLAUTH_FROM_SOURCE: '1' },
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^schoolauth: missing --email; usage: schoolauth account create/);
  });
});
