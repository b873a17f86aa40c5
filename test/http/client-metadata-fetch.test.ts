/**
 * The metadata-document fetcher against a real https server with a test CA (docs/decisions.md "Client ID Metadata Documents", draft §5,
 * §8.6, §8.7): every refusal, and that no refused address is ever connected to. Every address a
 * test connects to is loopback; refusals of other addresses happen before any connection.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, Socket, type Server as TcpServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { rootCertificates } from 'node:tls';
import {
  type FetchSettings,
  fetchDocument,
  type Resolver,
} from '../../src/oauth/client-id-metadata/fetch.js';
import {
  json,
  type MetadataServer,
  raw,
  slow,
  startMetadataServer,
  testCa,
  untrustedCa,
} from '../helpers/metadata-server.js';

describe('fetching a client metadata document', () => {
  let docs: MetadataServer;
  let settings: FetchSettings;
  const doc = { client_id: 'x', client_name: 'Agent', redirect_uris: ['http://127.0.0.1/callback'] };

  before(async () => {
    docs = await startMetadataServer();
    settings = {
      connectTimeoutMs: 1000,
      readTimeoutMs: 300,
      allowLoopback: true,
      ca: [...rootCertificates, readFileSync(testCa().caFile, 'utf8')],
    };
    docs.route('/doc.json', json(doc, { 'cache-control': 'max-age=600' }));
  });
  after(() => docs.close());

  const failure = async (url: string, extra: Partial<FetchSettings> = {}) => {
    const result = await fetchDocument(url, { ...settings, ...extra });
    assert.equal(result.ok, false, `expected a failure for ${url}`);
    return result as Extract<typeof result, { ok: false }>;
  };

  it('fetches the document over https with the test CA, with its cache headers', async () => {
    for (const url of [docs.url('/doc.json'), docs.url('/doc.json', '127.0.0.1')]) {
      const result = await fetchDocument(url, settings);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(JSON.parse(result.body.toString()), doc);
      assert.equal(result.headers.cacheControl, 'max-age=600');
    }
  });

  it('a certificate from an unknown CA is refused (tls)', async () => {
    const stranger = await startMetadataServer(untrustedCa());
    stranger.route('/doc.json', json(doc));
    try {
      assert.equal((await failure(stranger.url('/doc.json'))).failure, 'tls');
      assert.equal((await failure(docs.url('/doc.json'), { ca: undefined })).failure, 'tls');
    } finally {
      await stranger.close();
    }
  });

  // docs/configuration.md: without CLIENT_METADATA_CA_FILE the fetch trusts Node's store, which NODE_EXTRA_CA_CERTS
  // extends; Node reads that variable at process start, so this runs in a process of its own.
  it('without a CA file, the CA named by NODE_EXTRA_CA_CERTS is trusted (and only then)', async () => {
    const script = `
      import { fetchDocument } from './src/oauth/client-id-metadata/fetch.ts';
      const result = await fetchDocument(${JSON.stringify(docs.url('/doc.json'))},
        { connectTimeoutMs: 2000, readTimeoutMs: 2000, allowLoopback: true, ca: undefined });
      console.log(result.ok ? 'ok' : result.failure);`;
    const run = (extra: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const env = { ...process.env, ...extra };
        if (!('NODE_EXTRA_CA_CERTS' in extra)) delete env.NODE_EXTRA_CA_CERTS;
        execFile(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', script],
          { env },
          (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout.trim())),
        );
      });
    assert.equal(await run({ NODE_EXTRA_CA_CERTS: testCa().caFile }), 'ok');
    assert.equal(await run({}), 'tls');
  });

  it('loopback is refused for a non-loopback issuer, before connecting', async () => {
    const before = docs.hits('/doc.json');
    const refused = await failure(docs.url('/doc.json', '127.0.0.1'), { allowLoopback: false });
    assert.equal(refused.failure, 'address_refused');
    assert.match(refused.reason, /127\.0\.0\.1 is a loopback address/);
    assert.equal((await failure(docs.url('/doc.json'), { allowLoopback: false })).failure, 'address_refused');
    assert.equal(docs.hits('/doc.json'), before, 'never connected');
  });

  // Only addresses that stay on this machine even if the check regressed: 0.0.0.0 and [::] (the
  // unit tests judge every other special-use range; the resolver stubs below never connect).
  it('special-use IP literals are refused without any connection attempt', async () => {
    for (const host of ['0.0.0.0', '[::]', '[::ffff:0.0.0.0]']) {
      const started = Date.now();
      const refused = await failure(`https://${host}:${docs.port}/doc.json`);
      assert.equal(refused.failure, 'address_refused', host);
      assert.match(refused.reason, /special-use address/, host);
      assert.ok(Date.now() - started < 100, `${host} refused at once, not after a connection attempt`);
    }
  });

  // Private and link-local literals (a cloud metadata service lives at 169.254.169.254): every
  // socket connect is intercepted for the duration, so even a regressed check cannot send a packet.
  it('private and link-local IP literals (10.x, 169.254.169.254, fd00::) are refused before any socket connects', async () => {
    const attempts: string[] = [];
    const connect = Socket.prototype.connect;
    Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
      const [options] = args as [{ host?: string } | number | string];
      attempts.push(typeof options === 'object' ? String(options.host) : String(options));
      throw new Error('the test forbids connecting anywhere');
    } as typeof connect;
    try {
      for (const host of ['10.1.2.3', '169.254.169.254', '[fd00::1]', '[::ffff:10.0.0.1]']) {
        const refused = await failure(`https://${host}/client.json`, {
          resolve: async () => assert.fail('an IP literal is never resolved'),
        });
        assert.equal(refused.failure, 'address_refused', host);
        const literal = new URL(`https://${host}/`).hostname.replace(/^\[(.*)\]$/, '$1');
        assert.ok(refused.reason.startsWith(`${literal} is a special-use address: `), refused.reason);
      }
    } finally {
      Socket.prototype.connect = connect;
    }
    assert.deepEqual(attempts, [], 'no connection was attempted');
  });

  it('a host name resolving to a special-use address is refused, even when another address is allowed', async () => {
    const stub =
      (addresses: LookupAddress[]): Resolver =>
      async () =>
        addresses;
    const before = docs.hits('/doc.json');
    for (const addresses of [
      [{ address: '10.1.2.3', family: 4 }],
      [
        { address: '127.0.0.1', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
      [
        { address: '127.0.0.1', family: 4 },
        { address: 'fd00::1', family: 6 },
      ],
    ]) {
      const refused = await failure(`https://cimd.test:${docs.port}/doc.json`, { resolve: stub(addresses) });
      assert.equal(refused.failure, 'address_refused');
      assert.match(refused.reason, /^cimd\.test resolves to \S+, which is a special-use address: /);
    }
    assert.equal(docs.hits('/doc.json'), before, 'never connected, not even to the allowed address');
  });

  it('connects to exactly the address it judged: one resolution, no rebinding', async () => {
    let calls = 0;
    // A rebinding resolver: a safe answer first, a private one after.
    const rebinding: Resolver = async () => {
      calls += 1;
      return calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }];
    };
    const before = docs.hits('/doc.json');
    const result = await fetchDocument(`https://cimd.test:${docs.port}/doc.json`, {
      ...settings,
      resolve: rebinding,
    });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(calls, 1, 'the host was resolved once');
    assert.equal(docs.hits('/doc.json'), before + 1);
  });

  it('a host name that does not resolve answers dns', async () => {
    const refused = await failure('https://cimd.test/client.json', {
      resolve: async () => {
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    assert.equal(refused.failure, 'dns');
  });

  it('a redirect is not followed', async () => {
    docs.route('/moved.json', raw(302, '', { location: docs.url('/doc.json') }));
    const before = docs.hits('/doc.json');
    const refused = await failure(docs.url('/moved.json'));
    assert.equal(refused.failure, 'redirect');
    assert.match(refused.reason, /answered 302, a redirect; redirects are not followed/);
    assert.equal(docs.hits('/doc.json'), before, 'the target was never requested');
  });

  it('only 200 is a document', async () => {
    docs.route('/gone.json', raw(404, '{}', { 'content-type': 'application/json' }));
    docs.route('/empty.json', raw(204, ''));
    docs.route('/error.json', raw(500, '{}', { 'content-type': 'application/json' }));
    for (const path of ['/gone.json', '/empty.json', '/error.json']) {
      assert.equal((await failure(docs.url(path))).failure, 'status', path);
    }
  });

  it('only JSON media types are read', async () => {
    docs.route('/html.json', raw(200, '<html></html>', { 'content-type': 'text/html' }));
    docs.route('/none.json', raw(200, '{}'));
    docs.route(
      '/vnd.json',
      raw(200, '{}', { 'content-type': 'application/client-metadata+json; charset=utf-8' }),
    );
    assert.equal((await failure(docs.url('/html.json'))).failure, 'content_type');
    assert.equal((await failure(docs.url('/none.json'))).failure, 'content_type');
    assert.ok((await fetchDocument(docs.url('/vnd.json'), settings)).ok);
  });

  it('reads at most 5 KB: refused by Content-Length, or while streaming without one', async () => {
    const exact = Buffer.alloc(5 * 1024, 0x20);
    docs.route('/exact.json', raw(200, exact, { 'content-type': 'application/json' }));
    docs.route(
      '/big.json',
      raw(200, Buffer.alloc(5 * 1024 + 1, 0x20), { 'content-type': 'application/json' }),
    );
    let sent = 0;
    docs.route('/stream.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => {
        sent += 1024;
        res.write(Buffer.alloc(1024, 0x20));
        if (sent >= 1024 * 1024) clearInterval(timer);
      }, 1);
      res.once('close', () => clearInterval(timer));
    });
    assert.ok((await fetchDocument(docs.url('/exact.json'), settings)).ok, 'exactly 5 KB is read');
    assert.equal((await failure(docs.url('/big.json'))).failure, 'too_large');
    assert.equal((await failure(docs.url('/stream.json'))).failure, 'too_large');
    assert.ok(sent < 1024 * 1024, 'the stream was abandoned early');
  });

  it('a slow answer times out after the read timeout', async () => {
    docs.route('/slow.json', slow(2000, json(doc)));
    const started = Date.now();
    const refused = await failure(docs.url('/slow.json'));
    assert.equal(refused.failure, 'timeout');
    assert.match(refused.reason, /not received within 300 ms/);
    assert.ok(Date.now() - started < 1500);
  });

  it('a server that never completes the TLS handshake times out after the connect timeout', async () => {
    const sockets: Socket[] = [];
    const silent: TcpServer = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = Date.now();
      const refused = await failure(`https://127.0.0.1:${port}/client.json`, { connectTimeoutMs: 200 });
      assert.equal(refused.failure, 'timeout');
      assert.match(refused.reason, /no connection .* within/);
      assert.ok(Date.now() - started < 1000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('a refused connection answers network', async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.equal((await failure(`https://127.0.0.1:${port}/client.json`)).failure, 'network');
  });
});
