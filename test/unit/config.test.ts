import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ignoredSettingWarnings } from '../../src/ops/start-up-warnings.js';

function problems(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

describe('configuration', () => {
  it('defaults serve a loopback issuer on 127.0.0.1:3000 with SQLite under ./data', () => {
    const config = loadConfig({});
    assert.equal(config.issuer, 'http://127.0.0.1:3000');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 3000);
    assert.equal(config.databaseUrl, 'sqlite:./data/schoolauth.db');
    assert.equal(config.codeTtl, 60);
    assert.equal(config.accessTokenTtl, 3600);
    assert.equal(config.refreshTokenTtl, 2592000);
    assert.equal(config.refreshGrace, 30);
    assert.equal(config.sessionTtl, 86400);
    assert.equal(config.rateLimits, true);
    assert.equal(config.rateLimitFlushMs, 1000);
    assert.equal(config.rateLimitMaxKeys, 100_000);
    assert.equal(config.databasePoolSize, 10);
    assert.equal(config.seedDemo, true);
    assert.equal(config.logRequests, 'errors');
    assert.ok(Object.isFrozen(config));
  });

  it('rate-limit flush interval and key cap: bounded whole numbers', () => {
    assert.match(
      problems({ RATE_LIMIT_FLUSH_MS: '5' })[0]!,
      /RATE_LIMIT_FLUSH_MS="5": expected a whole number from 10 to 60000/,
    );
    assert.match(
      problems({ RATE_LIMIT_MAX_KEYS: '10' })[0]!,
      /RATE_LIMIT_MAX_KEYS="10": expected a whole number from 1000/,
    );
  });

  it('DATABASE_TIMEOUT: 5 seconds by default, a whole number of seconds from 1 to 300', () => {
    assert.equal(loadConfig({}).databaseTimeout, 5);
    assert.equal(loadConfig({ DATABASE_TIMEOUT: '2' }).databaseTimeout, 2);
    for (const bad of ['0', '1.5', 'soon', '301']) {
      assert.deepEqual(problems({ DATABASE_TIMEOUT: bad }), [
        `DATABASE_TIMEOUT=${JSON.stringify(bad)}: expected a whole number from 1 to 300`,
      ]);
    }
  });

  it('REQUEST_TIMEOUT and IDLE_TIMEOUT: 120 and 72 seconds by default, whole seconds from 1 to 3600, both reported at once', () => {
    const config = loadConfig({});
    assert.equal(config.requestTimeout, 120);
    assert.equal(config.idleTimeout, 72);
    assert.equal(loadConfig({ REQUEST_TIMEOUT: '30', IDLE_TIMEOUT: '5' }).requestTimeout, 30);
    assert.deepEqual(problems({ REQUEST_TIMEOUT: '0', IDLE_TIMEOUT: '1h' }), [
      'REQUEST_TIMEOUT="0": expected a whole number from 1 to 3600',
      'IDLE_TIMEOUT="1h": expected a whole number from 1 to 3600',
    ]);
  });

  it('DATABASE_NAMED_STATEMENTS: on by default, off for a pooler that drops prepared statements; nothing else', () => {
    assert.equal(loadConfig({}).databaseNamedStatements, true);
    assert.equal(loadConfig({ DATABASE_NAMED_STATEMENTS: 'off' }).databaseNamedStatements, false);
    assert.deepEqual(problems({ DATABASE_NAMED_STATEMENTS: 'maybe' }), [
      'DATABASE_NAMED_STATEMENTS="maybe": expected "on" or "off"',
    ]);
  });

  it('PRUNE_THREAD (removed) is accepted with any value and listed as ignored, for the start-up warning', () => {
    assert.deepEqual(loadConfig({}).ignoredSettings, []);
    assert.deepEqual(loadConfig({ PRUNE_THREAD: 'worker' }).ignoredSettings, ['PRUNE_THREAD']);
    assert.deepEqual(loadConfig({ PRUNE_THREAD: 'auto' }).ignoredSettings, ['PRUNE_THREAD']);
    const [warning, ...more] = ignoredSettingWarnings({ config: loadConfig({ PRUNE_THREAD: 'worker' }) });
    assert.equal(more.length, 0);
    assert.match(warning!.message, /^PRUNE_THREAD is set but no longer used .*ignored/);
    assert.deepEqual(ignoredSettingWarnings({ config: loadConfig({}) }), []);
  });

  it('the issuer is canonical: a trailing slash is dropped', () => {
    assert.equal(loadConfig({ ISSUER: 'https://auth.example.com/' }).issuer, 'https://auth.example.com');
  });

  it('a non-loopback issuer seeds no demo school', () => {
    assert.equal(loadConfig({ ISSUER: 'https://auth.example.com' }).seedDemo, false);
  });

  it('without ISSUER the issuer is the loopback address the server listens on', () => {
    assert.equal(loadConfig({ HOST: '127.0.0.2', PORT: '4000' }).issuer, 'http://127.0.0.2:4000');
    assert.equal(loadConfig({ HOST: '::1', PORT: '4000' }).issuer, 'http://[::1]:4000');
    assert.equal(loadConfig({ HOST: 'localhost', PORT: '4000' }).issuer, 'http://localhost:4000');
  });

  it('listening beyond loopback without ISSUER is refused, saying to set ISSUER', () => {
    for (const host of ['0.0.0.0', '::', '10.9.9.9', 'auth-1.internal']) {
      assert.deepEqual(problems({ HOST: host }), [
        `ISSUER: required when HOST=${JSON.stringify(host)} listens beyond loopback; set ISSUER to the public origin clients use, e.g. ISSUER=https://auth.example.com`,
      ]);
    }
    assert.equal(
      loadConfig({ HOST: '0.0.0.0', ISSUER: 'https://auth.example.com' }).issuer,
      'https://auth.example.com',
    );
  });

  it('a plain-http issuer on a non-loopback host is refused whatever HOST is', () => {
    for (const host of ['127.0.0.1', '10.9.9.9', '0.0.0.0']) {
      assert.match(
        problems({ HOST: host, ISSUER: 'http://10.9.9.9:3000' })[0]!,
        /ISSUER="http:\/\/10.9.9.9:3000": expected https/,
      );
    }
  });

  it('the demo is seeded at start only by a loopback server on SQLite; SEED_DEMO=on elsewhere names `schoolauth demo`', () => {
    assert.equal(loadConfig({}).seedDemo, true);
    assert.equal(loadConfig({ HOST: '::1' }).seedDemo, true);
    assert.equal(loadConfig({ SEED_DEMO: 'off' }).seedDemo, false);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' }).seedDemo, false);
    assert.equal(loadConfig({ HOST: '0.0.0.0', ISSUER: 'http://127.0.0.1:3000' }).seedDemo, false);
    const elsewhere: Record<string, string>[] = [
      { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' },
      { HOST: '0.0.0.0', ISSUER: 'http://127.0.0.1:3000' },
      { ISSUER: 'https://auth.example.com' },
    ];
    for (const env of elsewhere) {
      assert.deepEqual(problems({ ...env, SEED_DEMO: 'on' }), [
        'SEED_DEMO=on: the demo school is seeded at start only by a loopback server (HOST and ISSUER) on SQLite; to seed it into this database run `schoolauth demo`',
      ]);
    }
  });

  it('every bad variable is reported at once, by name, with what is accepted', () => {
    const found = problems({
      PORT: 'eighty',
      CODE_TTL: '-5',
      LOG_LEVEL: 'loud',
      LOG_REQUESTS: 'some',
      RATE_LIMITS: 'maybe',
      DATABASE_URL: 'mysql://x',
      ISSUER: 'http://auth.example.com',
    });
    assert.equal(found.length, 7);
    assert.match(found.join('\n'), /PORT="eighty": expected a whole number from 0 to 65535/);
    assert.match(found.join('\n'), /CODE_TTL="-5": expected a whole number from 1 to 600/);
    assert.match(
      found.join('\n'),
      /LOG_LEVEL="loud": expected one of fatal, error, warn, info, debug, trace, silent/,
    );
    assert.match(found.join('\n'), /LOG_REQUESTS="some": expected one of all, errors/);
    assert.match(found.join('\n'), /RATE_LIMITS="maybe": expected "on" or "off"/);
    assert.match(found.join('\n'), /DATABASE_URL="mysql:\/\/x": expected sqlite:<path>/);
    assert.match(found.join('\n'), /ISSUER="http:\/\/auth.example.com": expected https/);
  });

  it('password checks: SIGNIN_CONCURRENCY defaults to the CPU count (at most 4), SIGNIN_QUEUE to 16; both validated', () => {
    const config = loadConfig({});
    assert.equal(config.signinConcurrency, Math.min(availableParallelism(), 4));
    assert.equal(config.signinQueue, 16);
    const set = loadConfig({ SIGNIN_CONCURRENCY: '2', SIGNIN_QUEUE: '0' });
    assert.deepEqual([set.signinConcurrency, set.signinQueue], [2, 0]);
    const found = problems({ SIGNIN_CONCURRENCY: '0', SIGNIN_QUEUE: 'many' });
    assert.match(found.join('\n'), /SIGNIN_CONCURRENCY="0": expected a whole number from 1 to 64/);
    assert.match(found.join('\n'), /SIGNIN_QUEUE="many": expected a whole number from 0 to 10000/);
  });

  it('an issuer with a path, query or fragment is refused', () => {
    assert.match(problems({ ISSUER: 'https://a.example/auth' })[0]!, /expected an origin only/);
    assert.match(problems({ ISSUER: 'https://a.example/?x=1' })[0]!, /expected an origin only/);
  });

  it('HOST takes an IP address or a host name; anything else is named, with the others', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', '10.1.2.3', 'localhost', 'auth-1.internal']) {
      assert.equal(loadConfig({ HOST: host, ISSUER: 'https://auth.example.com' }).host, host);
    }
    for (const host of ['999.1.1.1', '1.2.3', 'a b', 'host_name', '[::1]', '-x.example', 'x..y']) {
      const found = problems({ HOST: host, PORT: 'x' });
      assert.equal(found.length, 2, host);
      assert.ok(found[0]!.startsWith(`HOST=${JSON.stringify(host)}: expected an IP address`), found[0]);
    }
  });

  it('CORS_ORIGINS: none by default; comma-separated https origins; anything else named', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.deepEqual(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com, https://b.example:8443/' }).corsOrigins,
      ['https://app.example.com', 'https://b.example:8443'],
    );
    for (const bad of ['http://app.example.com', 'https://app.example.com/path', '*', 'app.example.com']) {
      assert.deepEqual(problems({ CORS_ORIGINS: bad }), [
        `CORS_ORIGINS: ${JSON.stringify(bad)} is not an https origin; expected comma-separated origins such as https://app.example.com (scheme, host and optional port, no path)`,
      ]);
    }
  });

  it('LOOPBACK_HOSTS accepts only loopback host names', () => {
    assert.deepEqual(loadConfig({ LOOPBACK_HOSTS: '127.0.0.1,[::1]' }).loopbackHosts, ['127.0.0.1', '[::1]']);
    assert.match(problems({ LOOPBACK_HOSTS: '127.0.0.1,example.com' })[0]!, /LOOPBACK_HOSTS/);
  });

  it('client metadata documents: defaults, bounds and the CA file are validated', () => {
    assert.deepEqual(loadConfig({}).clientMetadata, {
      enabled: true,
      connectTimeoutMs: 2000,
      readTimeoutMs: 3000,
      cacheMin: 300,
      cacheMax: 86400,
      cacheEntries: 1000,
      caCertificates: undefined,
      rateLimit: 30,
    });
    assert.ok(Object.isFrozen(loadConfig({}).clientMetadata));
    const dir = mkdtempSync(join(tmpdir(), 'sa-config-'));
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeFileSync(join(dir, 'ca.pem'), `${pem}${pem}`);
    writeFileSync(join(dir, 'not.pem'), 'hello');
    assert.equal(
      loadConfig({ CLIENT_METADATA_CA_FILE: join(dir, 'ca.pem') }).clientMetadata.caCertificates?.length,
      2,
    );
    const found = problems({
      CLIENT_METADATA_DOCUMENTS: 'sometimes',
      CLIENT_METADATA_CONNECT_TIMEOUT_MS: '0',
      CLIENT_METADATA_CACHE_MIN: '600',
      CLIENT_METADATA_CACHE_MAX: '60',
      CLIENT_METADATA_CA_FILE: join(dir, 'missing.pem'),
    }).join('\n');
    assert.match(found, /CLIENT_METADATA_DOCUMENTS="sometimes": expected "on" or "off"/);
    assert.match(found, /CLIENT_METADATA_CONNECT_TIMEOUT_MS="0": expected a whole number from 50 to 30000/);
    assert.match(found, /CLIENT_METADATA_CACHE_MIN=600 is above CLIENT_METADATA_CACHE_MAX=60/);
    assert.match(found, /CLIENT_METADATA_CA_FILE=".*missing\.pem": cannot be read \(ENOENT\)/);
    assert.match(
      problems({ CLIENT_METADATA_CA_FILE: join(dir, 'not.pem') })[0]!,
      /expected PEM certificates/,
    );
  });

  it('TRUST_PROXY takes off, on, a hop count or addresses', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'on' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy, '10.0.0.0/8,127.0.0.1');
    assert.match(problems({ TRUST_PROXY: 'everyone!' })[0]!, /TRUST_PROXY/);
  });

  it('the server exits non-zero with the list when started with bad configuration', async () => {
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'x', CODE_TTL: '0' },
      encoding: 'utf8',
      timeout: 20000,
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /PORT="x"/);
    assert.match(result.stderr, /CODE_TTL="0"/);
  });
});
