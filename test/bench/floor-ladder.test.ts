/**
 * The framework-floor ladder (bench/floor.ts) measures what each rung says it adds: each rung's
 * server (bench/servers/floor-server.ts) answers with the body and headers of its rung, and the
 * top rung runs schoolauth's request-line hook.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, describe, it } from 'node:test';
import { freePort, type ServerProcess, startServer } from '../../bench/child.js';
import { FLOOR_STEPS, type FloorStep, rungPath, stepsUpTo } from '../../bench/floor-steps.js';
import { openidConfiguration } from '../../src/oauth/discovery.js';

const SERVER = new URL('../../bench/servers/floor-server.ts', import.meta.url).pathname;
const ADDED_HEADERS = [
  'cache-control',
  'access-control-allow-origin',
  'x-content-type-options',
  'x-request-id',
];

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('bench framework-floor ladder', () => {
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
  });

  it('stepsUpTo keeps every rung below the one named', () => {
    assert.deepEqual([...stepsUpTo('bare')], ['bare']);
    assert.deepEqual([...stepsUpTo('hooks')], [...FLOOR_STEPS]);
  });

  it("answers bare Fastify's / and, from the document rung up, the discovery document's own path", () => {
    assert.equal(rungPath('bare'), '/');
    for (const step of FLOOR_STEPS.slice(1))
      assert.equal(rungPath(step), '/.well-known/openid-configuration');
  });

  for (const step of FLOOR_STEPS) {
    it(`the ${step} rung answers with what its rung adds and nothing above it`, {
      timeout: 30_000,
    }, async () => {
      const port = await freePort();
      const server = await startServer(`floor ${step}`, {
        args: ['--import', 'tsx', SERVER],
        env: { FLOOR_STEP: step },
        port,
        readyPath: rungPath(step),
      });
      servers.push(server);
      const has = stepsUpTo(step as FloorStep);
      const answer = await get(port, rungPath(step));
      assert.equal(answer.status, 200);
      const expected = has.has('document')
        ? openidConfiguration(`http://127.0.0.1:${port}`, true)
        : { hello: 'world' };
      assert.deepEqual(JSON.parse(answer.body), expected);
      for (const name of ADDED_HEADERS) {
        assert.equal(name in answer.headers, has.has('headers'), `${name} on the ${step} rung`);
      }
      const overlong = await get(port, `${rungPath(step)}?${'a'.repeat(9000)}`);
      assert.equal(overlong.status === 414, has.has('hooks'), `414 for an overlong URL on the ${step} rung`);
    });
  }
});
