/**
 * The HTTP limit: bare Fastify 5 answering a small JSON body, no logging, no hooks. Schoolauth's
 * discovery, JWKS and protected API GET are measured against it. Environment: PORT.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get(
  '/',
  { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },
  async () => ({ hello: 'world' }),
);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3200) });
