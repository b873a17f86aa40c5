/**
 * A TCP proxy on a free loopback port in front of a real server (PostgreSQL), that a test can
 * cut: the database "goes away" for the processes behind it while the real server, shared with
 * everything else on the machine, keeps running.
 *
 * - `cut('refuse')`: every open connection is destroyed and new ones are refused (the listening
 *   socket is closed), as when the database host restarts.
 * - `cut('stall')`: connections stay open but nothing passes, and new ones are accepted and then
 *   hang, as when the network drops packets: only timeouts end the waits.
 * - `restore()`: back to forwarding, on the same port.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

type Mode = 'open' | 'refuse' | 'stall';

export class TcpProxy {
  private server: Server | undefined;
  private mode: Mode = 'open';
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A URL like `url` with this proxy's host and port. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  async start(): Promise<this> {
    await this.listen(0);
    return this;
  }

  cut(mode: 'refuse' | 'stall'): void {
    this.mode = mode;
    if (mode === 'refuse') {
      this.server?.close();
      this.server = undefined;
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
    }
  }

  async restore(): Promise<void> {
    if (this.mode === 'stall') {
      // What was held during the stall is dropped, as a network partition's end finds it.
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
    }
    this.mode = 'open';
    if (!this.server) await this.listen(this.port);
  }

  async close(): Promise<void> {
    this.cut('refuse');
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        this.port = typeof address === 'object' && address ? address.port : port;
        resolve();
      });
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'stall') return;
    const upstream = createConnection(this.targetPort, this.targetHost);
    this.track(upstream);
    // While stalled, data is dropped on the floor in both directions.
    client.on('data', (chunk) => {
      if (this.mode === 'open') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (this.mode === 'open') client.write(chunk);
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }
}
