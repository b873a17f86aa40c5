/**
 * A real https server for Client ID Metadata Documents, with a test CA made by `openssl` at test
 * time. The schoolauth server under test trusts the CA through CLIENT_METADATA_CA_FILE (read at
 * start, so in-process test apps and child processes alike can use it).
 *
 *   const ca = testCa();                                   // { caFile, key, cert } (one per process)
 *   const docs = await startMetadataServer(ca);            // https://localhost:<port>
 *   const url = docs.url('/agent.json');
 *   docs.route('/agent.json', json({ client_id: url, client_name: 'Agent', redirect_uris: [...] }));
 *   docs.hits('/agent.json');                              // requests received on that path
 *   const t = await createTestApp(dialect, { env: { CLIENT_METADATA_CA_FILE: ca.caFile } });
 *
 * The certificate names localhost, cimd.test, 127.0.0.1 and ::1. `untrustedCa()` is a second CA
 * the server under test does not know (a TLS failure). Every address is loopback.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  /** PEM file of the CA certificate. */
  readonly caFile: string;
  /** The server's key and certificate (signed by the CA). */
  readonly key: string;
  readonly cert: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function makeCa(name: string): TestCa {
  const dir = mkdtempSync(join(tmpdir(), `sa-${name}-`));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    `/CN=schoolauth ${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl(dir, ['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=DNS:localhost,DNS:cimd.test,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  ]);
  return {
    caFile: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
  };
}

let trusted: TestCa | undefined;
let untrusted: TestCa | undefined;

/** The test CA (made once per process). */
export function testCa(): TestCa {
  trusted ??= makeCa('test-ca');
  return trusted;
}

/** A CA the server under test is not told about. */
export function untrustedCa(): TestCa {
  untrusted ??= makeCa('untrusted-ca');
  return untrusted;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers a JSON document with 200 (and any extra headers). */
export const json =
  (document: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(document));
  };

/** Answers bytes as they are, with a status and content type. */
export const raw =
  (status: number, body: string | Buffer, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, headers).end(body);
  };

/** Waits `ms` before answering with `then` (a slow server). */
export const slow =
  (ms: number, then: Handler): Handler =>
  (req, res) => {
    const timer = setTimeout(() => then(req, res), ms);
    res.once('close', () => clearTimeout(timer));
  };

export interface MetadataServer {
  /** https://localhost:<port> */
  readonly origin: string;
  readonly port: number;
  url(path: string, host?: string): string;
  route(path: string, handler: Handler): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startMetadataServer(ca: TestCa = testCa()): Promise<MetadataServer> {
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  const server: Server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `https://localhost:${port}`,
    port,
    url: (path, host = 'localhost') => `https://${host}:${port}${path}`,
    route: (path, handler) => routes.set(path, handler),
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
