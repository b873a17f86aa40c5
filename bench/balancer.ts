/**
 * The bench's round-robin balancer for `--instances N`: a TCP proxy on a loopback port that
 * hands each new connection to the next backend in turn and copies bytes both ways. The load
 * generator keeps its connections alive, so 16 connections over two instances are 8 on each;
 * every request of a connection goes to the same instance, as behind a layer-4 balancer.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Backend {
  readonly host: string;
  readonly port: number;
}

/** The next backend, in turn. */
export function roundRobin<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('round robin over no backends');
  let next = 0;
  return () => {
    const item = items[next]!;
    next = (next + 1) % items.length;
    return item;
  };
}

function pipeBoth(client: Socket, upstream: Socket): void {
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  client.pipe(upstream);
  upstream.pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.once('error', close);
  upstream.once('error', close);
  client.once('close', close);
  upstream.once('close', close);
}

/** A balancer over `backends`, not yet listening. */
export function createBalancer(backends: readonly Backend[]): Server {
  const pick = roundRobin(backends);
  return createServer((client) => {
    const { host, port } = pick();
    pipeBoth(client, connect({ host, port }));
  });
}

/** Starts a balancer on 127.0.0.1:`port` (0: any free port) and returns the port. */
export async function listenBalancer(
  backends: readonly Backend[],
  port = 0,
): Promise<{ server: Server; port: number }> {
  const server = createBalancer(backends);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : port };
}
