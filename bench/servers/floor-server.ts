/**
 * One rung of the framework-floor ladder (bench/floor-steps.ts): Fastify 5 with schoolauth's own
 * pieces (its modules, not copies) added up to FLOOR_STEP, answering GET /. Environment: PORT,
 * FLOOR_STEP. Logs go to stdout, which the bench sends to /dev/null as it does schoolauth's.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { installCommonHeaders, setCommonHeaders } from '../../src/common-headers.js';
import { loggerOptions, makeChildrenLazy, RequestLogController } from '../../src/logging.js';
import { openidConfiguration } from '../../src/oauth/discovery.js';
import { observeAnswer } from '../../src/ops/metrics-routes.js';
import { requestId } from '../../src/request-id.js';
import { installRequestLineChecks } from '../../src/request-line.js';
import { isFloorStep, stepsUpTo } from '../floor-steps.js';

const step = process.env.FLOOR_STEP;
if (!isFloorStep(step)) throw new Error(`FLOOR_STEP must name a rung of bench/floor-steps.ts, not ${step}`);
const has = stepsUpTo(step);
const port = Number(process.env.PORT ?? 3300);
const issuer = `http://127.0.0.1:${port}`;

const app: FastifyInstance = Fastify({
  ...(has.has('logger')
    ? {
        logger: loggerOptions('info'),
        logController: new RequestLogController('errors', has.has('metrics') ? observeAnswer : undefined),
      }
    : { logger: false }),
  ...(has.has('headers') ? { genReqId: requestId } : {}),
  // app.ts turns Node's own Host check off: request-line.ts answers it in JSON.
  ...(has.has('hooks') ? { http: { requireHostHeader: false } } : {}),
});
if (has.has('logger')) makeChildrenLazy(app.log);
if (has.has('hooks')) {
  installCommonHeaders(app, issuer);
  installRequestLineChecks(app);
}

// discovery.ts's headers and pre-built body, as its route sends them.
const DOCUMENT = Buffer.from(JSON.stringify(openidConfiguration(issuer, true)));
const TYPE_ONLY = { 'content-type': 'application/json; charset=utf-8' };
const METADATA = { ...TYPE_ONLY, 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' };

if (!has.has('document')) {
  app.get(
    '/',
    { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },
    async () => ({ hello: 'world' }),
  );
} else {
  const schema = { response: { 200: { type: 'object', additionalProperties: true } } };
  app.get('/', { schema }, (request, reply) => {
    if (!has.has('headers')) return reply.headers(TYPE_ONLY).send(DOCUMENT);
    // Below the hooks rung the common headers are set here, as the hook would set them.
    if (!has.has('hooks')) setCommonHeaders(reply, request.id, false);
    return reply.headers(METADATA).send(DOCUMENT);
  });
}
await app.listen({ host: '127.0.0.1', port });
