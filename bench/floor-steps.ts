/**
 * The rungs of the framework-floor ladder (bench/floor.ts): from bare Fastify's small JSON answer
 * to schoolauth's discovery answer, one piece added per rung, each rung keeping the ones below.
 * What each rung costs in CPU per request is the arithmetic behind the "≥ 85% of bare Fastify"
 * target for the metadata documents (docs/performance.md, "The framework floor, rung by rung").
 */
import { DISCOVERY_PATH } from './oauth.js';

export const FLOOR_STEPS = ['bare', 'document', 'headers', 'logger', 'metrics', 'hooks'] as const;
export type FloorStep = (typeof FLOOR_STEPS)[number];

export const FLOOR_STEP_TITLES: Record<FloorStep | 'schoolauth' | 'schoolauth-api', string> = {
  bare: "bare Fastify: { hello: 'world' } through a response schema, no logger (the bench's baseline)",
  document:
    '+ the discovery document (2 kB of pre-built bytes) at its own path, instead of the small JSON at /',
  headers: '+ the headers schoolauth sends with it: cache-control, CORS, nosniff, x-request-id',
  logger:
    "+ schoolauth's logger: pino, and the first root hook giving each request a lazy child logger and the watch on its answer's end (EndingResponse), the common headers moved into that hook",
  metrics: '+ the request metrics (counted when the answer has ended, by route and status)',
  hooks: "+ schoolauth's second root onRequest hook (the request-line checks)",
  schoolauth: 'schoolauth itself (dist/src/main.js), GET /.well-known/openid-configuration',
  'schoolauth-api':
    "schoolauth's protected GET /api/v1/account with a bearer token (the bench's api scenario)",
};

/** The rungs up to and including `step`. */
export function stepsUpTo(step: FloorStep): ReadonlySet<FloorStep> {
  return new Set(FLOOR_STEPS.slice(0, FLOOR_STEPS.indexOf(step) + 1));
}

export function isFloorStep(value: string | undefined): value is FloorStep {
  return (FLOOR_STEPS as readonly string[]).includes(value ?? '');
}

/**
 * The path a rung answers: bare Fastify's `/` (the bench's baseline), and from the document rung
 * up the discovery document's own, as schoolauth answers it — the longer path costs the parser,
 * the router and the string work on the URL (docs/performance.md, "The framework floor").
 */
export function rungPath(step: FloorStep): string {
  return stepsUpTo(step).has('document') ? DISCOVERY_PATH : '/';
}
