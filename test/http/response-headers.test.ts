import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

const GENERATED = /^([0-9a-f]{12})-[0-9a-z]+$/;

describe('headers on every answer (request id, nosniff)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
  });
  after(() => t.close());

  it('gives every answer — a document, a 404, an OAuth error — its own request id and nosniff', async () => {
    const answers = await Promise.all([
      fetch(`${t.url}/.well-known/openid-configuration`),
      fetch(`${t.url}/no/such/route`),
      fetch(`${t.url}/api/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'nope' }),
      }),
    ]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 404, 400],
    );
    const ids = answers.map((a) => a.headers.get('x-request-id') ?? '');
    for (const [i, answer] of answers.entries()) {
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      assert.match(ids[i]!, GENERATED);
    }
    assert.equal(new Set(ids).size, ids.length, 'request ids repeat');
    assert.equal(new Set(ids.map((id) => GENERATED.exec(id)![1])).size, 1, 'one prefix per process');
  });

  it("keeps a client's request id that is safe to log, and replaces one that is not", async () => {
    const kept = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': 'proxy.7f3a_01-B' } });
    assert.equal(kept.headers.get('x-request-id'), 'proxy.7f3a_01-B');
    for (const unsafe of ['has space', 'x'.repeat(65), 'quote"d']) {
      const replaced = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': unsafe } });
      assert.match(replaced.headers.get('x-request-id') ?? '', GENERATED, unsafe);
    }
  });
});

/** Sends raw bytes and answers what came back: status, headers (lower-case names) and body. */
function rawRequest(
  url: string,
  request: string,
): Promise<{ status: number; headers: Map<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

const HOST = 'Host: 127.0.0.1\r\nConnection: close\r\n';

/** Requests refused before any route runs: by Node's parser, by the router, or by a body parser. */
const PARSER_LEVEL: ReadonlyArray<[name: string, request: string, status: number]> = [
  ['a URL over 8 KiB', `GET /healthz?x=${'a'.repeat(9000)} HTTP/1.1\r\n${HOST}\r\n`, 414],
  [
    'a URL over the 16 KiB header limit',
    `GET /api/v1/schools?x=${'a'.repeat(20_000)} HTTP/1.1\r\n${HOST}\r\n`,
    414,
  ],
  [
    'a path segment over 200 characters',
    `GET /api/v1/schools/${'a'.repeat(300)} HTTP/1.1\r\n${HOST}\r\n`,
    414,
  ],
  ['a bad percent-encoding in the path', `GET /api/v1/schools/%zz HTTP/1.1\r\n${HOST}\r\n`, 400],
  ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\n${HOST}X-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431],
  ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400],
  [
    'Content-Length with Transfer-Encoding',
    `POST /api/oauth/token HTTP/1.1\r\n${HOST}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    400,
  ],
  [
    'a malformed chunk',
    `POST /api/oauth/token HTTP/1.1\r\n${HOST}Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
    400,
  ],
  ['a control character in a header', `GET /healthz HTTP/1.1\r\n${HOST}X-A: a\u0001b\r\n\r\n`, 400],
  ['HTTP/1.1 without Host', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', 400],
  [
    'an unsupported Expect',
    `POST /api/oauth/token HTTP/1.1\r\n${HOST}Expect: 200-ok\r\nContent-Length: 0\r\n\r\n`,
    417,
  ],
  [
    'a body that is not JSON',
    `POST /api/oauth/register HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":`,
    400,
  ],
  [
    'an unsupported content type (the token endpoint answers OAuth: 400)',
    `POST /api/oauth/token HTTP/1.1\r\n${HOST}Content-Type: text/xml\r\nContent-Length: 4\r\n\r\n<a/>`,
    400,
  ],
  [
    'a body shorter than its Content-Length',
    `POST /api/oauth/token HTTP/1.1\r\n${HOST}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 99999999\r\n\r\nx`,
    413,
  ],
];

describe('parser-level errors answer the JSON error format (issue 19 §6)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
  });
  after(() => t.close());

  for (const [name, request, status] of PARSER_LEVEL) {
    it(`${name}: ${status} with {error, error_description}, JSON, nosniff and a request id`, async () => {
      const res = await rawRequest(t.url, request);
      assert.equal(res.status, status, res.body);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('x-request-id') ?? '', GENERATED);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.has('strict-transport-security'), false, 'no HSTS on an http issuer');
      const body = JSON.parse(res.body) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
      assert.equal(typeof body.error, 'string');
      assert.ok(String(body.error_description).length > 10);
    });
  }
});

describe('Strict-Transport-Security on an https issuer (issue 19 §6)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { listen: true, env: { ISSUER: 'https://auth.school.example' } });
  });
  after(() => t.close());

  it('every answer carries max-age=31536000 — documents, pages, errors and parser-level refusals', async () => {
    const listening = `http://127.0.0.1:${t.config.port}`;
    const answers = await Promise.all([
      fetch(`${listening}/.well-known/oauth-authorization-server`),
      fetch(`${listening}/signin`),
      fetch(`${listening}/no/such/route`),
      fetch(`${listening}/api/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'x' }),
      }),
    ]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 404, 400],
    );
    for (const answer of answers) {
      assert.equal(answer.headers.get('strict-transport-security'), 'max-age=31536000', answer.url);
    }
    for (const [name, request] of PARSER_LEVEL) {
      const res = await rawRequest(listening, request);
      assert.equal(res.headers.get('strict-transport-security'), 'max-age=31536000', name);
    }
  });
});
