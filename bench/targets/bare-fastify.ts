/** Bare Fastify: the HTTP limit of this machine for a small JSON answer. */
import { join } from 'node:path';
import { freePort, startServer } from '../child.js';
import type { BaselineTarget } from './target.js';

const SERVER = join(import.meta.dirname, '..', 'servers', 'bare-fastify-server.ts');

export async function startBareFastify(): Promise<BaselineTarget> {
  const port = await freePort();
  const server = await startServer('bare-fastify', {
    args: ['--import', 'tsx', SERVER],
    env: {},
    port,
    readyPath: '/',
  });
  return { name: 'bare-fastify', server, path: '/' };
}
