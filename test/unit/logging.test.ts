import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { mintSecret } from '../../src/crypto/tokens.js';
import {
  createLogger,
  maskUrl,
  redactSecrets,
  requestLines,
  requestLogger,
  SLOW_REQUEST_MS,
} from '../../src/http/logging.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { captureLogLines } from '../helpers/log-lines.js';

describe('log redaction', () => {
  it('censors secret fields at the top level and one level down, case-insensitively', () => {
    const logged = redactSecrets({
      password: 'hunter2',
      body: { code: 'abc', Client_Secret: 's3cret', name: 'Ada' },
      headers: { authorization: 'Bearer t', cookie: 'sid=1', accept: 'json' },
      count: 3,
    });
    assert.deepEqual(logged, {
      password: '[redacted]',
      body: { code: '[redacted]', Client_Secret: '[redacted]', name: 'Ada' },
      headers: { authorization: '[redacted]', cookie: '[redacted]', accept: 'json' },
      count: 3,
    });
  });

  it('returns the same object, uncopied, when nothing is secret', () => {
    const line = { method: 'GET', url: '/x', statusCode: 200, nested: { name: 'Ada' } };
    assert.equal(redactSecrets(line), line);
  });

  it('never changes the object the caller logged', () => {
    const body = { token: 't' };
    redactSecrets({ body });
    assert.deepEqual(body, { token: 't' });
  });
});

describe('what an error, a body and a URL keep in the log', () => {
  it("an error's code (a database's 40P01, Node's ECONNRESET) is logged; an OAuth code in a body or query is not", () => {
    const { sink, lines } = captureLogLines();
    const log = createLogger('info', sink);
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01', token: 'sa_at_x' });
    log.error({ err: deadlock, body: { code: 'sa_ac_secret' }, query: { code: 'sa_ac_q' } }, 'failed');
    log.flush();
    const line = lines[0] as { err: Record<string, unknown>; body: unknown; query: unknown };
    assert.equal(line.err.code, '40P01');
    assert.equal(line.err.token, '[redacted]');
    assert.deepEqual(line.body, { code: '[redacted]' });
    assert.deepEqual(line.query, { code: '[redacted]' });
  });

  it("masks this server's token-looking values anywhere in a logged URL, the path included", () => {
    const token = 'sa_at_0mhx5c3k1' + 'A'.repeat(43);
    assert.equal(maskUrl(`/api/v1/schools/${token}/courses`), '/api/v1/schools/sa_at_[redacted]/courses');
    assert.equal(maskUrl('/x/sa%5Fat%5Fabc/y'), '/x/sa%5Fat%5F[redacted]/y');
    assert.equal(maskUrl('/x?q=Bearer%20sa_rt_abc&n=1'), '/x?q=Bearer%20sa_rt_[redacted]&n=1');
    for (const prefix of ['sa_ac_', 'sa_cs_', 'sa_ss_']) {
      assert.equal(maskUrl(`/p/${prefix}secret`), `/p/${prefix}[redacted]`);
    }
    assert.equal(maskUrl('/a/eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'), '/a/[redacted]');
    assert.equal(maskUrl('/uploads/upl_123/notes.txt?x=1'), '/uploads/upl_123/notes.txt?x=1');
  });
});

/** An app whose log lines are captured as parsed JSON objects. */
async function appLogging(logRequests: string): Promise<{ t: TestApp; lines: Record<string, unknown>[] }> {
  const { sink, lines } = captureLogLines();
  const t = await createTestApp('sqlite', {
    env: { LOG_LEVEL: 'info', LOG_REQUESTS: logRequests },
    logStream: sink,
  });
  return { t, lines };
}

const completed = (lines: Record<string, unknown>[]) => lines.filter((l) => l.msg === 'request completed');

describe('request log lines (LOG_REQUESTS)', () => {
  let all: { t: TestApp; lines: Record<string, unknown>[] };
  let errors: { t: TestApp; lines: Record<string, unknown>[] };
  before(async () => {
    all = await appLogging('all');
    errors = await appLogging('errors');
  });
  after(async () => {
    await all.t.close();
    await errors.t.close();
  });

  it('all: one flat line per answer, with the request id and a masked query string', async () => {
    const response = await all.t.app.inject({
      method: 'GET',
      url: '/.well-known/openid-configuration?code=secret-code&x=1',
      headers: { 'user-agent': 'probe/1' },
    });
    assert.equal(response.statusCode, 200);
    const [line, ...more] = completed(all.lines);
    assert.equal(more.length, 0, 'exactly one line for the request');
    assert.equal(line!.reqId, response.headers['x-request-id']);
    assert.equal(line!.method, 'GET');
    assert.equal(line!.url, '/.well-known/openid-configuration?code=[redacted]&x=1');
    assert.equal(line!.statusCode, 200);
    assert.equal(line!.userAgent, 'probe/1');
    assert.equal(typeof line!.responseTime, 'number');
  });

  it('a token a client put in the URL path is masked in the request line', async () => {
    const token = mintSecret('accessToken').value;
    await all.t.app.inject({ method: 'GET', url: `/api/v1/schools/${token}/courses` });
    const line = completed(all.lines).find((l) => String(l.url).startsWith('/api/v1/schools/'));
    assert.equal(line?.url, '/api/v1/schools/sa_at_[redacted]/courses');
    assert.ok(!JSON.stringify(all.lines).includes(token.slice(6)), 'the token appears in no line');
  });

  it('errors (the default): successful answers write no line, failed ones do', async () => {
    await errors.t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    assert.equal(completed(errors.lines).length, 0);
    await errors.t.app.inject({ method: 'GET', url: '/no/such/route' });
    const [line] = completed(errors.lines);
    assert.equal(line?.statusCode, 404);
    assert.equal(line?.url, '/no/such/route');
  });
});

describe('the log line of a failed request names its error code', () => {
  let logged: { t: TestApp; lines: Record<string, unknown>[] };
  before(async () => {
    logged = await appLogging('errors');
  });
  after(() => logged.t.close());

  const lineOf = (response: { headers: Record<string, unknown> }) =>
    completed(logged.lines).find((l) => l.reqId === response.headers['x-request-id']);

  it('token endpoint: invalid_client and invalid_grant, with the status and without the sent secrets', async () => {
    const form = (body: Record<string, string>) => ({
      method: 'POST' as const,
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(body).toString(),
    });
    const unknown = await logged.t.app.inject(
      form({
        grant_type: 'authorization_code',
        client_id: 'no-such-client',
        code: 'c0de-secret-1',
        code_verifier: 'v'.repeat(43),
      }),
    );
    assert.equal(unknown.json().error, 'invalid_client');
    assert.equal(lineOf(unknown)?.error, 'invalid_client');
    assert.equal(lineOf(unknown)?.statusCode, 401);
    const registered = await logged.t.app.inject({
      method: 'POST',
      url: '/api/oauth/register',
      payload: { redirect_uris: ['http://127.0.0.1/cb'], client_name: 'Log probe' },
    });
    const clientId = registered.json().client_id as string;
    const badCode = await logged.t.app.inject(
      form({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: 'c0de-secret-2',
        code_verifier: 'v'.repeat(43),
        redirect_uri: 'http://127.0.0.1/cb',
      }),
    );
    assert.equal(badCode.json().error, 'invalid_grant');
    const line = lineOf(badCode);
    assert.equal(line?.error, 'invalid_grant');
    assert.equal(line?.statusCode, 400);
    assert.equal(line?.url, '/api/oauth/token');
    assert.doesNotMatch(JSON.stringify(logged.lines), /c0de-secret/, 'no code reaches the log');
  });

  it('API and authorization page: invalid_token and the error page code', async () => {
    const api = await logged.t.app.inject({
      method: 'GET',
      url: '/api/v1/account',
      headers: { authorization: 'Bearer not-a-token' },
    });
    assert.equal(api.statusCode, 401);
    assert.equal(lineOf(api)?.error, 'invalid_token');
    assert.doesNotMatch(JSON.stringify(lineOf(api)), /not-a-token/);
    const page = await logged.t.app.inject({
      method: 'GET',
      url: '/oauth/authorize?response_type=code&client_id=no-such-client&redirect_uri=http://127.0.0.1/cb',
    });
    assert.equal(page.statusCode, 400);
    assert.equal(lineOf(page)?.error, 'invalid_client');
    const missing = await logged.t.app.inject({ method: 'GET', url: '/no/such/route' });
    assert.equal(lineOf(missing)?.error, 'not_found');
  });
});

describe('requestLines: which ended answers get a line', () => {
  it('errors: a successful answer slower than SLOW_REQUEST_MS gets one, and an answer cut short by an error', () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const counted: number[] = [];
    const ended = requestLines('errors', (_request, _reply, elapsedMs) => void counted.push(elapsedMs));
    const request = {
      method: 'GET',
      url: '/x?code=c',
      ip: '127.0.0.1',
      headers: {},
    } as unknown as FastifyRequest;
    const reply = { statusCode: 200, log } as unknown as FastifyReply;
    ended(request, reply, SLOW_REQUEST_MS - 1, undefined);
    assert.equal(lines.length, 0, 'a quick successful answer writes no line');
    ended(request, reply, SLOW_REQUEST_MS, undefined);
    ended(request, reply, 5, new Error('cut short'));
    assert.deepEqual(
      lines.map((l) => [l.msg, l.statusCode, l.url, l.responseTime]),
      [
        ['request completed', 200, '/x?code=[redacted]', SLOW_REQUEST_MS],
        ['request errored', 200, '/x?code=[redacted]', 5],
      ],
    );
    assert.deepEqual(counted, [SLOW_REQUEST_MS - 1, SLOW_REQUEST_MS, 5], 'every answer counted');
  });
});

describe('request loggers (requestLogger)', () => {
  /** A pino logger writing parsed lines into `lines`. */
  function rootLogger() {
    const lines: Record<string, unknown>[] = [];
    const root = pino(
      { level: 'info' },
      { write: (line: string) => void lines.push(JSON.parse(line)) },
    ) as unknown as FastifyBaseLogger;
    return { root, lines };
  }

  it("writes a request's lines with its reqId, and a child of it with both bindings", () => {
    const { root, lines } = rootLogger();
    const request = requestLogger(root, 'r1');
    request.info('one');
    request.child({ step: 'two' }).warn('two');
    assert.deepEqual(
      lines.map(({ msg, reqId, step }) => ({ msg, reqId, step })),
      [
        { msg: 'one', reqId: 'r1', step: undefined },
        { msg: 'two', reqId: 'r1', step: 'two' },
      ],
    );
  });

  it('gives every request of the app, in every plugin scope, its own logger bound to its id', async () => {
    const { t, lines } = await appLogging('errors');
    try {
      await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
      const response = await t.app.inject({ method: 'GET', url: '/no/such/route' });
      const [line] = completed(lines);
      assert.equal(line?.reqId, response.headers['x-request-id']);
    } finally {
      await t.close();
    }
  });
});
