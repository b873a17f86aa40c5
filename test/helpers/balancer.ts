/**
 * The test's load balancer: an HTTP reverse proxy on a free loopback port, round robin over
 * backend ports, kept-alive upstream connections (nginx `keepalive`, HAProxy, Envoy), and a retry
 * on the next backend when a backend could not be reached or closed the connection before
 * answering anything (nginx `proxy_next_upstream error`, HAProxy `retry-on conn-failure
 * empty-response`): such a request never reached a handler, so sending it elsewhere is safe. A
 * request that got any answer is never retried.
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

export class Balancer {
  private server: Server | undefined;
  private next = 0;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });
  port = 0;
  /** Requests sent to another backend after one could not be reached. */
  retries = 0;

  constructor(private readonly backends: readonly number[]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : port;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    this.agent.destroy();
    await new Promise((resolve) => server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    // Each backend up to 20 times, rounds 100 ms apart: an instance may be restarting.
    for (let attempt = 0; attempt < this.backends.length * 20; attempt++) {
      const port = this.backends[this.next++ % this.backends.length]!;
      const answered = await this.forward(port, req, body, res);
      if (answered) return;
      this.retries++;
      if ((attempt + 1) % this.backends.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    res.writeHead(502, { 'content-type': 'text/plain' }).end('no backend answered');
  }

  /** Resolves true once the backend's answer is being relayed, false when it answered nothing. */
  private forward(port: number, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<boolean> {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())),
    );
    return new Promise((resolve) => {
      const upstream = httpRequest(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent: this.agent },
        (answer) => {
          const kept = Object.fromEntries(
            Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())),
          );
          res.writeHead(answer.statusCode ?? 502, kept as Record<string, string | string[]>);
          answer.pipe(res);
          answer.on('error', () => res.destroy());
          resolve(true);
        },
      );
      upstream.on('error', () => resolve(false));
      upstream.end(body);
    });
  }
}
