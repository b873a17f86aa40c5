/**
 * The round-robin balancer as a process of its own (bench/balancer.ts): PORT to listen on,
 * BACKENDS as `host:port,host:port`.
 */
import { type Backend, listenBalancer } from '../balancer.js';

const backends: Backend[] = (process.env.BACKENDS ?? '').split(',').map((entry) => {
  const [host, port] = entry.split(':');
  return { host: host!, port: Number(port) };
});
await listenBalancer(backends, Number(process.env.PORT));
