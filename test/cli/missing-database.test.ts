/**
 * Issue 49 item 1: the CLI works only on a database that is already there. Run from another
 * folder, with a mistyped DATA_DIR or a DATABASE_URL pointing at an empty database, every command
 * but `migrate` and `demo` refuses (exit 2), names the variable and the path it used, and creates
 * nothing: no file, no directory, no PostgreSQL schema.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { Command } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/registry.js';
import SQLite from '../../src/storage/sqlite/binding.js';
import { DIALECTS, dropSchema, newSchemaName, PG_URL } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/** Arguments that get `command` past its argument checks: required options, first choices. */
function someArguments(command: Command): string[] {
  const argv = command.name.split(' ');
  if (command.argument) argv.push(command.argument.choices[0]!);
  for (const [name, spec] of Object.entries(command.options)) {
    if (!spec.required) continue;
    argv.push(`--${name}`);
    if (spec.type === 'string') argv.push(spec.choices?.[0] ?? (name === 'email' ? 'a@example.com' : 'x'));
  }
  return argv;
}

/** Every command that works on the database and may not create it. */
const REFUSING = COMMANDS.filter(
  (c) => (!c.bare && !(c as { createsDatabase?: true }).createsDatabase) || c.name === 'backup',
);

async function schemaExists(schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_namespace where nspname = $1', [schema])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('the CLI and a database that is not there', () => {
  it('keys rotate run from another folder refuses (exit 2), names DATA_DIR, the path and the folder, and creates no ./data', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'sa-elsewhere-'));
    const result = spawnSync(process.execPath, [join(ROOT, 'bin/schoolauth.js'), 'keys', 'rotate'], {
      cwd: elsewhere,
      env: { PATH: process.env.PATH, SCHOOLAUTH_FROM_SOURCE: '1' },
      encoding: 'utf8',
      timeout: 60000,
    });
    assert.equal(result.status, 2, result.stderr);
    assert.equal(
      result.stderr,
      `schoolauth: no schoolauth database at ${elsewhere}/data/schoolauth.db: the file does not exist; DATABASE_URL is not set, so the database is DATA_DIR/schoolauth.db with DATA_DIR=./data (the default), relative to the current directory ${elsewhere}. Run the command with the service's DATABASE_URL or DATA_DIR (docs/deploy.md "Running the CLI"), or create a new database there with \`schoolauth migrate\`\n`,
    );
    assert.equal(result.stdout, '', 'nothing published');
    assert.deepEqual(readdirSync(elsewhere), [], 'no ./data, no database');
  });

  it('DATA_DIR with a typo: client list refuses instead of listing "(none)", and makes no directory', async () => {
    const typo = join(mkdtempSync(join(tmpdir(), 'sa-typo-')), 'typo');
    const { runCli } = await import('../../src/cli/run.js');
    let stderr = '';
    let stdout = '';
    const code = await runCli(
      ['client', 'list'],
      {
        stdout: (t) => {
          stdout += t;
        },
        stderr: (t) => {
          stderr += t;
        },
        readStdin: async () => '',
      },
      { DATA_DIR: typo, LOG_LEVEL: 'silent' },
    );
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(
        `^schoolauth: no schoolauth database at ${typo}/schoolauth.db: the file does not exist; DATABASE_URL is not set, so the database is DATA_DIR/schoolauth.db with DATA_DIR=${typo}\\. `,
      ),
    );
    assert.equal(existsSync(typo), false, 'DATA_DIR was not created');
  });

  it('backup refuses a missing source and writes no backup', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-nobackup-'));
    const r = await cli(`sqlite:${join(dir, 'db.sqlite')}`, ['backup', '--to', join(dir, 'b.sqlite')]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /no schoolauth database at .*db\.sqlite: the file does not exist; the path comes from DATABASE_URL=sqlite:/,
    );
    assert.deepEqual(readdirSync(dir), []);
  });

  for (const dialect of DIALECTS) {
    it(`[${dialect}] every command but migrate and demo refuses a database without schoolauth's tables; migrate creates it, then they run`, async () => {
      let url: string;
      let schema: string | undefined;
      let dir: string | undefined;
      if (dialect === 'postgres') {
        schema = newSchemaName();
        url = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
      } else {
        dir = mkdtempSync(join(tmpdir(), 'sa-empty-'));
        // An SQLite database, but not schoolauth's.
        const other = new SQLite(join(dir, 'db.sqlite'));
        other.exec('create table notes (body text)');
        other.close();
        url = `sqlite:${join(dir, 'db.sqlite')}`;
      }
      assert.ok(REFUSING.length >= 18, 'the commands are found');
      for (const command of REFUSING) {
        if (command.name === 'backup' && dialect === 'postgres') continue;
        const argv = someArguments(command);
        const r = await cli(url, argv, 'a long enough password\n');
        assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split('\n').length, 1, argv.join(' '));
        assert.match(
          r.stderr,
          dialect === 'postgres'
            ? new RegExp(
                `^schoolauth: no schoolauth database at DATABASE_URL=.*: schema "${schema}" has no schoolauth tables\\. Run the command with the service's DATABASE_URL `,
              )
            : /^schoolauth: no schoolauth database at .*db\.sqlite: the file has no schoolauth tables; the path comes from DATABASE_URL=sqlite:/,
          argv.join(' '),
        );
      }
      if (schema) assert.equal(await schemaExists(schema), false, 'no schema was created');
      else {
        const other = new SQLite(join(dir!, 'db.sqlite'), { readonly: true });
        const tables = other.prepare("select name from sqlite_master where type = 'table'").pluck().all();
        other.close();
        assert.deepEqual(tables, ['notes'], 'nothing was written');
      }
      const migrated = await cli(url, ['migrate']);
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.match(migrated.stderr, /NEW DATABASE/);
      const listed = await cli(url, ['client', 'list']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout, '(none)\n');
      if (schema) await dropSchema(schema);
    });
  }
});
