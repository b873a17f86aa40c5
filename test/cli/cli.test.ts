import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMANDS } from '../../src/cli/registry.js';
import { verifyPassword } from '../../src/crypto/password.js';
import { openStorage } from '../../src/storage/connect.js';
import { DIALECTS, dropSchema, newSchemaName, PG_URL } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

const CI = process.env.CI === 'true' || process.env.CI === '1';

/** `account create --email … --name … --school … --password-stdin`, then any further arguments. */
const createArgs = (email: string, name: string, school: string, ...more: string[]) => [
  'account',
  'create',
  '--email',
  email,
  '--name',
  name,
  '--school',
  school,
  '--password-stdin',
  ...more,
];

for (const dialect of DIALECTS) {
  describe(`schoolauth CLI [${dialect}]`, () => {
    let url: string;
    let schema: string | undefined;
    before(async () => {
      if (dialect === 'postgres') {
        schema = newSchemaName();
        url = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
      } else {
        url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'sa-cli-')), 'db.sqlite')}`;
      }
      // Only migrate (and demo) create a database; every other command needs one.
      const migrated = await cli(url, ['migrate']);
      assert.equal(migrated.code, 0, migrated.stderr);
    });
    after(async () => {
      if (schema) await dropSchema(schema);
    });

    it('account create for a school that does not exist asks for its name (exit 2) instead of naming it after the slug', async () => {
      const r = await cli(url, createArgs('ada@example.com', 'Ada', 'maths'), 'correct horse battery\n');
      assert.equal(r.code, 2);
      assert.equal(
        r.stderr.split('\n').at(-2),
        'schoolauth: school "maths" does not exist yet; to create it with this account as its owner, add --school-name "<display name>"',
      );
      const ownerAsAdmin = await cli(
        url,
        createArgs('ada@example.com', 'Ada', 'maths', '--school-name', 'Maths Academy', '--role', 'admin'),
        'correct horse battery\n',
      );
      assert.equal(ownerAsAdmin.code, 2);
      assert.match(ownerAsAdmin.stderr, /its first account is its owner, not admin/);
      assert.equal((await cli(url, ['school', 'list'])).stdout, '(none)\n', 'nothing was created');
    });

    it('account create makes the school with the account as owner, reading the password from stdin', async () => {
      const password = 'correct horse battery';
      const r = await cli(
        url,
        createArgs('Ada@Example.com', 'Ada', 'maths', '--school-name', 'Maths Academy'),
        `${password}\n`,
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stdout,
        /^created account ada@example.com \(acc_\S+\) in the new school maths \("Maths Academy"\) as its owner\n$/,
      );
      assert.match((await cli(url, ['school', 'list'])).stdout, /maths\s+Maths Academy/);
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

    it('a second account in an existing school gets the default role, and says so', async () => {
      const r = await cli(url, createArgs('cy@example.com', 'Cy', 'maths'), 'yet another long password\n');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /in school maths as admin \(the default role; --role owner makes an owner\)\n$/);
      const help = await cli(url, ['account', 'create', '--help']);
      assert.match(help.stdout, /--role ROLE\s+role in an existing school \(default: admin\)/);
    });

    it('a second account in an existing school gets the requested role', async () => {
      const r = await cli(
        url,
        createArgs('bob@example.com', 'Bob', 'maths', '--role', 'admin'),
        'another long password\n\n',
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /in school maths as admin\n$/);
    });

    it('account list shows each account’s role in each school, without any password material', async () => {
      assert.equal((await cli(url, ['school', 'create', '--slug', 'art', '--name', 'Art School'])).code, 0);
      await cli(url, createArgs('dee@example.com', 'Dee', 'art', '--role', 'owner'), 'a password for dee\n');
      const r = await cli(url, ['account', 'list']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /^email\s+name\s+id\s+schools\s+status\s+created$/m);
      assert.match(r.stdout, /ada@example.com\s+Ada\s+\S+\s+maths \(owner\)\s+active/);
      assert.match(r.stdout, /bob@example.com\s+Bob\s+\S+\s+maths \(admin\)\s+active/);
      assert.match(r.stdout, /dee@example.com\s+Dee\s+\S+\s+art \(owner\)\s+active/);
      assert.doesNotMatch(r.stdout, /argon2/);
    });

    it('a duplicate email is refused with exit code 1 and one line pointing to account join', async () => {
      const r = await cli(
        url,
        createArgs('Ada@example.com', 'Ada', 'art', '--role', 'owner'),
        'some long password',
      );
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr,
        'schoolauth: an account with email ada@example.com already exists; to add that person to school art, run: schoolauth account join --email ada@example.com --school art --role owner\n',
      );
    });

    it('a short or missing password is a usage error (exit 2) and never echoed', async () => {
      const r = await cli(url, createArgs('c@example.com', 'C', 'maths'), 'short\n');
      assert.equal(r.code, 2);
      assert.match(r.stderr, /at least 10 characters/);
      assert.doesNotMatch(r.stderr, /short\b(?! )/);
      const none = await cli(url, [
        'account',
        'reset-password',
        '--email',
        'ada@example.com',
        '--password-stdin',
      ]);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /no password on standard input; pipe it in: printf/);
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
      const badRole = await cli(url, createArgs('x@example.com', 'X', 'maths', '--role', 'god'));
      assert.equal(badRole.code, 2);
      assert.match(badRole.stderr, /--role must be one of owner, admin, not "god"/);
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

    it('account enable lets a disabled account in again, once; its revoked sessions stay ended', async () => {
      const r = await cli(url, ['account', 'enable', '--email', 'bob@example.com']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        'enabled bob@example.com: it can sign in again (the sessions and tokens revoked when it was disabled stay revoked)\n',
      );
      assert.match((await cli(url, ['account', 'list'])).stdout, /bob@example.com.*active/);
      const again = await cli(url, ['account', 'enable', '--email', 'bob@example.com']);
      assert.equal(again.code, 0);
      assert.equal(again.stdout, 'bob@example.com is not disabled; nothing changed\n');
      const audit = await cli(url, ['audit', 'list', '--kind', 'account.enabled']);
      assert.equal(audit.stdout.trim().split('\n').length, 2, 'audited once');
      const missing = await cli(url, ['account', 'enable', '--email', 'nobody@example.com']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no account with email nobody@example.com/);
    });

    it('account join adds an existing person to a second school (admin by default, or --role), once; an unknown school is refused', async () => {
      assert.equal((await cli(url, ['school', 'create', '--slug', 'physics', '--name', 'Physics'])).code, 0);
      const joined = await cli(url, ['account', 'join', '--email', 'Ada@Example.com', '--school', 'physics']);
      assert.equal(joined.code, 0, joined.stderr);
      assert.equal(
        joined.stdout,
        'added ada@example.com to school physics as admin (the default role; --role owner makes an owner)\n',
      );
      const owner = await cli(url, [
        'account',
        'join',
        '--email',
        'cy@example.com',
        '--school',
        'physics',
        '--role',
        'owner',
      ]);
      assert.equal(owner.code, 0, owner.stderr);
      assert.equal(owner.stdout, 'added cy@example.com to school physics as owner\n');
      const list = (await cli(url, ['account', 'list'])).stdout;
      assert.match(list, /ada@example.com\s+Ada\s+\S+\s+maths \(owner\), physics \(admin\)\s+active/);
      assert.match(list, /cy@example.com\s+Cy\s+\S+\s+maths \(admin\), physics \(owner\)\s+active/);
      const twice = await cli(url, [
        'account',
        'join',
        '--email',
        'ada@example.com',
        '--school',
        'physics',
        '--role',
        'owner',
      ]);
      assert.equal(twice.code, 1);
      assert.equal(
        twice.stderr,
        'schoolauth: ada@example.com is already a member of school physics, as admin\n',
      );
      const nowhere = await cli(url, ['account', 'join', '--email', 'ada@example.com', '--school', 'nope']);
      assert.equal(nowhere.code, 1);
      assert.match(nowhere.stderr, /school "nope" does not exist; schoolauth school list shows the schools/);
      const nobody = await cli(url, [
        'account',
        'join',
        '--email',
        'nobody@example.com',
        '--school',
        'physics',
      ]);
      assert.equal(nobody.code, 1);
      assert.match(nobody.stderr, /no account with email nobody@example.com/);
      const audit = await cli(url, ['audit', 'list', '--kind', 'account.joined']);
      assert.equal(audit.stdout.trim().split('\n').length, 3, 'each join audited');
    });

    it('school create and list; a bad slug or a blank name is a usage error, an existing slug is not', async () => {
      assert.equal(
        (await cli(url, ['school', 'create', '--slug', 'music', '--name', 'Music School'])).code,
        0,
      );
      const bad = await cli(url, ['school', 'create', '--slug', 'Bad Slug!', '--name', 'x']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /lower-case letters/);
      const blank = await cli(url, ['school', 'create', '--slug', 'blank', '--name', '  ']);
      assert.equal(blank.code, 2);
      assert.match(blank.stderr, /school "blank" needs a display name/);
      const noName = await cli(url, ['school', 'create', '--slug', 'blank']);
      assert.equal(noName.code, 2);
      assert.match(noName.stderr, /missing --name/);
      const taken = await cli(url, ['school', 'create', '--slug', 'music', '--name', 'Again']);
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /already exists/);
      const list = await cli(url, ['school', 'list']);
      assert.match(list.stdout, /music\s+Music School/);
      assert.match(list.stdout, /maths\s+Maths Academy/);
      assert.doesNotMatch(list.stdout, /blank/);
    });

    it('every argument error of every command exits 2 with one line saying what to type', async () => {
      const cases: Array<[string[], RegExp, string?]> = [
        [createArgs('not-an-email', 'X', 'maths'), /is not an email address/, 'a long password here'],
        [createArgs('x@example.com', ' ', 'maths'), /the name must not be empty/, 'a long password here'],
        [
          createArgs('x@example.com', 'X', 'maths', '--role', 'god'),
          /--role must be one of owner, admin, not "god"/,
        ],
        [['account', 'disable', '--email', 'nope'], /is not an email address/],
        [
          ['account', 'reset-password', '--email', 'ada@example.com', '--password-stdin'],
          /at least 10 characters/,
          'short',
        ],
        [
          ['client', 'list', '--kind', 'other'],
          /--kind must be one of integration, dynamic, metadata_document, not "other"/,
        ],
        [
          ['client', 'create', '--name', ' ', '--redirect-uri', 'https://a.example/cb'],
          /--name must not be empty/,
        ],
        [['audit', 'list', '--account', 'nope'], /is not an email address/],
        [['audit', 'list', '--limit', '0'], /--limit must be a whole number/],
        [['keys', 'list', 'extra'], /does not take positional arguments; usage: schoolauth keys list/],
        [['prune', '--force'], /Unknown option '--force'; usage: schoolauth prune/],
        [['migrate', '--bogus'], /usage: schoolauth migrate/],
        [['demo', 'now'], /usage: schoolauth demo/],
        [['completion'], /expected one shell; usage: schoolauth completion bash\|zsh/],
        [['completion', 'fish'], /the shell must be one of bash, zsh, not "fish"/],
      ];
      for (const [argv, message, stdin] of cases) {
        const r = await cli(url, argv, stdin);
        assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message, argv.join(' '));
        assert.equal(r.stderr.trim().split('\n').length, 1, argv.join(' '));
      }
    });

    it('audit list --kind bogus names the valid kinds', async () => {
      const r = await cli(url, ['audit', 'list', '--kind', 'bogus']);
      assert.equal(r.code, 2);
      assert.match(
        r.stderr,
        /--kind must be one of signin\.success, signin\.failure, .*key\.rotated.*, not "bogus"/,
      );
    });

    it('a noun alone, a noun with --help, or help and a noun lists its commands', async () => {
      const bare = await cli(url, ['keys']);
      assert.equal(bare.code, 2);
      assert.match(bare.stderr, /^schoolauth: keys needs a command; use one of: rotate, list\n/);
      assert.match(bare.stderr, /^ {2}keys rotate {2}/m);
      assert.match(bare.stderr, /^ {2}keys list {4}/m);
      const wrong = await cli(url, ['keys', 'bogus']);
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /keys has no command "bogus"; use one of: rotate, list/);
      for (const argv of [
        ['account', '--help'],
        ['help', 'account'],
        ['account', '-h'],
      ]) {
        const r = await cli(url, argv);
        assert.equal(r.code, 0, argv.join(' '));
        assert.match(
          r.stdout,
          /^usage: schoolauth account <create\|list\|disable\|enable\|join\|reset-password> \[options\]/,
        );
        for (const verb of ['create', 'list', 'disable', 'enable', 'join', 'reset-password']) {
          assert.match(r.stdout, new RegExp(`^ {2}account ${verb} `, 'm'), `${argv.join(' ')} lists ${verb}`);
        }
      }
      const command = await cli(url, ['help', 'audit', 'list']);
      assert.equal(command.code, 0);
      assert.match(command.stdout, /--kind KIND\s+only events of this kind \(one of: signin\.success, /);
    });

    it('keys rotate tells when the new key of each algorithm signs and how long the old one stays published; keys list shows each state', async () => {
      const rotate = await cli(url, ['keys', 'rotate']);
      assert.equal(rotate.code, 0, rotate.stderr);
      for (const alg of ['RS256', 'ES256', 'EdDSA']) {
        assert.match(
          rotate.stdout,
          new RegExp(
            `^new signing key \\S+: ${alg}, published now \\(every running instance serves it within 5 s\\)$`,
            'm',
          ),
        );
        assert.match(rotate.stdout, new RegExp(`^the current ${alg} key signs until then`, 'm'));
      }
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
      for (const alg of ['RS256', 'ES256', 'EdDSA']) {
        assert.match(list.stdout, new RegExp(`${alg}\\s+next\\s+current at \\S+ \\(in \\d+ s\\)`));
        assert.match(list.stdout, new RegExp(`${alg}\\s+current\\s+previous at \\S+ \\(in \\d+ s\\)`));
      }
      const again = await cli(url, ['keys', 'rotate', '--alg', 'ES256']);
      assert.equal(again.code, 1);
      assert.match(
        again.stderr,
        /^schoolauth: signing key \S+ \(ES256\) already waits to sign from \S+ \(in \d+ s\); rotate it again after that\n$/,
      );
      const bogus = await cli(url, ['keys', 'rotate', '--alg', 'HS256']);
      assert.equal(bogus.code, 2);
      assert.match(bogus.stderr, /--alg must be one of RS256, ES256, EdDSA, not "HS256"/);
    });

    it('keys list shows the replaced key as previous until its last ID tokens expire, then retired', async () => {
      // Moves the keys of the previous test along in time: its `next` key has started signing
      // (the other is now `previous`), then a third rotation leaves the oldest past its end.
      const now = Math.floor(Date.now() / 1000);
      const storage = await openStorage(url);
      try {
        await storage.db
          .updateTable('signing_keys')
          .set({ activates_at: now - 100 })
          .execute();
        await storage.db
          .updateTable('signing_keys')
          .set({ retired_at: now - 50, retire_until: now + 600 })
          .where('retired_at', 'is not', null)
          .execute();
      } finally {
        await storage.close();
      }
      const moved = await cli(url, ['keys', 'list']);
      assert.equal(moved.code, 0, moved.stderr);
      assert.match(moved.stdout, /RS256\s+current\s+\d{4}-/, 'the current key has no end yet');
      assert.match(moved.stdout, /RS256\s+previous\s+retired at \S+ \(in (59\d|600) s\)/);

      const storage2 = await openStorage(url);
      try {
        await storage2.db
          .updateTable('signing_keys')
          .set({ retire_until: now - 1 })
          .where('retired_at', 'is not', null)
          .execute();
      } finally {
        await storage2.close();
      }
      const later = await cli(url, ['keys', 'list']);
      assert.match(later.stdout, /RS256\s+retired\s+\d{4}-/, 'a retired key has no next change');
      assert.doesNotMatch(later.stdout, /\sprevious\s/);
    });

    it('migrate reports an up-to-date schema', async () => {
      const r = await cli(url, ['migrate']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /up to date/);
    });
  });
}

describe('schoolauth without a database', () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      const r = await cli('sqlite::memory:', [flag]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `schoolauth ${pkg.version}\n`);
    }
    assert.match((await cli('sqlite::memory:', ['--help'])).stdout, /schoolauth --version the version/);
  });

  it('a mistyped noun or verb gets a "did you mean" (exit 2); a word nothing is close to gets none', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['acount', 'list'],
        'unknown command "acount list"; did you mean "account list"? schoolauth --help lists the commands',
      ],
      [
        ['acount', 'lst'],
        'unknown command "acount lst"; did you mean "account list"? schoolauth --help lists the commands',
      ],
      [['acount'], 'unknown command "acount"; did you mean "account"? schoolauth --help lists the commands'],
      [['prnue'], 'unknown command "prnue"; did you mean "prune"? schoolauth --help lists the commands'],
      [['frobnicate'], 'unknown command "frobnicate"; schoolauth --help lists the commands'],
      [
        ['help', 'acount'],
        'unknown command "acount"; did you mean "account"? schoolauth --help lists the commands',
      ],
      [
        ['acount', 'list', '--help'],
        'unknown command "acount list"; did you mean "account list"? schoolauth --help lists the commands',
      ],
    ];
    for (const [argv, line] of cases) {
      const r = await cli('sqlite::memory:', argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.equal(r.stderr, `schoolauth: ${line}\n`, argv.join(' '));
    }
    const verb = await cli('sqlite::memory:', ['client', 'enabel', '--client-id', 'x']);
    assert.equal(verb.code, 2);
    assert.match(
      verb.stderr,
      /^schoolauth: client has no command "enabel"; did you mean "client enable"\? Use one of: create, list, disable, enable, /,
    );
  });
});

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

describe('schoolauth completion', () => {
  const script = async (shell: string) => {
    const r = await cli('sqlite::memory:', ['completion', shell]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };

  it('bash and zsh scripts name every command and option of the registry', async () => {
    for (const shell of ['bash', 'zsh']) {
      const text = await script(shell);
      for (const command of COMMANDS) {
        assert.ok(text.includes(`"${command.name}"|"${command.name} "*)`), `${shell}: ${command.name}`);
        for (const option of Object.keys(command.options)) {
          assert.match(text, new RegExp(`--${option}\\b`), `${shell}: ${command.name} --${option}`);
        }
      }
    }
  });

  it('bash accepts the script and completes nouns, verbs, options and option values', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sa-completion-')), 'schoolauth.bash');
    writeFileSync(path, await script('bash'));
    assert.equal(spawnSync('bash', ['-n', path]).status, 0);
    const complete = (...words: string[]) =>
      spawnSync(
        'bash',
        [
          '-c',
          `source '${path}'; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _schoolauth; printf '%s\\n' "\${COMPREPLY[*]}"`,
          'bash',
          'schoolauth',
          ...words,
        ],
        { encoding: 'utf8' },
      ).stdout.trim();
    assert.equal(complete('ke'), 'keys');
    assert.equal(complete('keys', ''), 'rotate list');
    assert.equal(complete('account', 'create', '--ro'), '--role');
    assert.equal(complete('account', 'reset-password', '--k'), '--keep-apps');
    assert.equal(complete('account', 'create', '--role', ''), 'owner admin');
    assert.equal(complete('client', 'list', '--kind', 'i'), 'integration');
    assert.equal(complete('audit', 'list', '--kind', 'key'), 'key.rotated key.sealed');
    assert.equal(complete('completion', 'z'), 'zsh');
    assert.equal(complete('account', 'j'), 'join');
    assert.equal(complete('account', 'join', '--role', ''), 'owner admin');
    assert.equal(complete('client', 'en'), 'enable');
    assert.equal(complete('backup', '--f'), '--force');
    assert.equal(complete('--v'), '--version');
  });

  // Without zsh the test skips, saying why; with CI=true (.ci/run installs zsh) it runs and fails.
  it('zsh accepts the script', {
    skip: !CI && spawnSync('zsh', ['-c', 'true']).error ? 'zsh is not installed' : false,
  }, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sa-completion-')), '_schoolauth');
    writeFileSync(path, await script('zsh'));
    assert.equal(spawnSync('zsh', ['-n', path]).status, 0);
    const loaded = spawnSync(
      'zsh',
      ['-c', `autoload -U compinit; compinit -u; source '${path}'; whence -w _schoolauth`],
      {
        encoding: 'utf8',
      },
    );
    assert.match(loaded.stdout, /_schoolauth: function/);
  });
});
