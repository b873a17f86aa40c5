/** The bench's round-robin balancer (bench/balancer.ts): each new connection to the next backend. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Server as NetServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { listenBalancer, roundRobin } from '../balancer.js';

async function backend(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => response.end(`${name}:${request.method}:${body}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

describe('bench balancer', () => {
  const servers: Array<Server | NetServer> = [];
  after(() => {
    for (const server of servers) {
      if ('closeAllConnections' in server) server.closeAllConnections();
      server.close();
    }
  });

  it('round robin takes the items in turn and starts over', () => {
    const next = roundRobin(['a', 'b', 'c']);
    assert.deepEqual([next(), next(), next(), next(), next()], ['a', 'b', 'c', 'a', 'b']);
    assert.throws(() => roundRobin([]), /no backends/);
  });

  it('hands each new connection to the next backend and carries requests both ways', async () => {
    const a = await backend('a');
    const b = await backend('b');
    const front = await listenBalancer([
      { host: '127.0.0.1', port: a.port },
      { host: '127.0.0.1', port: b.port },
    ]);
    servers.push(a.server, b.server, front.server);
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) {
      // A new connection per request: `connection: close` keeps fetch from reusing one.
      const response = await fetch(`http://127.0.0.1:${front.port}/`, {
        method: 'POST',
        body: `n${i}`,
        headers: { connection: 'close' },
      });
      answers.push(await response.text());
    }
    assert.deepEqual(answers, ['a:POST:n0', 'b:POST:n1', 'a:POST:n2', 'b:POST:n3']);
  });
});
