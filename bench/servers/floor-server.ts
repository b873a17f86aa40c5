/**
 * One rung of the framework-floor ladder (bench/floor-steps.ts): Fastify 5 with schoolauth's own
 * pieces (its modules, not copies) added up to FLOOR_STEP, answering GET at rungPath(FLOOR_STEP).
 * Environment: PORT, FLOOR_STEP. Logs go to stdout, which the bench sends to /dev/null as it does
 * schoolauth's.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { EndingResponse } from '../../src/answer-end.js';
import { setCommonHeaders } from '../../src/common-headers.js';
import { createLogger, requestLines } from '../../src/logging.js';
import { openidConfiguration } from '../../src/oauth/discovery.js';
import { observeAnswer } from '../../src/ops/metrics-routes.js';
import { type Arrival, installArrival } from '../../src/request-arrival.js';
import { requestId } from '../../src/request-id.js';
import { installRequestLineChecks } from '../../src/request-line.js';
import { isFloorStep, rungPath, stepsUpTo } from '../floor-steps.js';

const step = process.env.FLOOR_STEP;
if (!isFloorStep(step)) throw new Error(`FLOOR_STEP must name a rung of bench/floor-steps.ts, not ${step}`);
const has = stepsUpTo(step);
const port = Number(process.env.PORT ?? 3300);
const issuer = `http://127.0.0.1:${port}`;

// As app.ts from the logger rung up: no logger of Fastify's own, request-arrival.ts instead.
const arrival: Arrival | undefined = has.has('logger')
  ? {
      log: createLogger('info'),
      ended: requestLines('errors', has.has('metrics') ? observeAnswer : undefined),
      hsts: false,
    }
  : undefined;
const app: FastifyInstance = Fastify({
  logger: false,
  ...(has.has('headers') ? { genReqId: requestId } : {}),
  http: {
    // app.ts turns Node's own Host check off: request-line.ts answers it in JSON.
    ...(has.has('hooks') ? { requireHostHeader: false } : {}),
    ...(arrival ? { ServerResponse: EndingResponse } : {}),
  },
});
if (arrival) {
  app.log = arrival.log;
  installArrival(app, arrival);
}
if (has.has('hooks')) installRequestLineChecks(app);

// discovery.ts's headers and pre-built body, as its route sends them.
const DOCUMENT = Buffer.from(JSON.stringify(openidConfiguration(issuer, true)));
const TYPE_ONLY = { 'content-type': 'application/json; charset=utf-8' };
const METADATA = { ...TYPE_ONLY, 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' };

if (!has.has('document')) {
  app.get(
    rungPath(step),
    { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },
    async () => ({ hello: 'world' }),
  );
} else {
  const schema = { response: { 200: { type: 'object', additionalProperties: true } } };
  app.get(rungPath(step), { schema }, (request, reply) => {
    if (!has.has('headers')) return reply.headers(TYPE_ONLY).send(DOCUMENT);
    // Below the logger rung the common headers are set here, as the arrival hook would set them.
    if (!arrival) setCommonHeaders(reply, request.id, false);
    return reply.headers(METADATA).send(DOCUMENT);
  });
}
await app.listen({ host: '127.0.0.1', port });
