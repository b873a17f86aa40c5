import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { SCOPE_NAMES } from '../../src/oauth/scope-catalogue.js';
import { apiOperations } from '../helpers/api.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';

type Spec = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<string, { content?: Record<string, { schema: { properties?: object } }> }>;
        security?: Array<Record<string, string[]>>;
      }
    >
  >;
  components: {
    securitySchemes: {
      clientSecretBasic: { type: string; scheme: string };
      dpop: { type: string; scheme: string };
      oauth2: {
        type: string;
        flows: {
          authorizationCode: { authorizationUrl: string; tokenUrl: string; scopes: Record<string, string> };
        };
      };
    };
  };
};

/**
 * Routes /openapi.json leaves out on purpose: HEAD (Fastify answers it for every GET, with the
 * GET's headers), /metrics (an operator endpoint behind METRICS_TOKEN, not part of the API), and
 * OPTIONS, the CORS preflights a browser sends on its own (src/http/cors.ts, docs/interop.md).
 */
const DELIBERATELY_UNDESCRIBED = /^(HEAD \S+|GET \/metrics|OPTIONS \S+)$/;

/** "METHOD /path/{param}" of every route Fastify answers, read from its route tree. */
function fastifyRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of match[3]?.split(', ') ?? []) routes.push(`${method} ${path}`);
  }
  return routes;
}

/** Scopes the OAuth layer guards (UserInfo), not the school API (docs/decisions.md "The school API"). */
const OIDC_SCOPES = ['openid', 'profile', 'email'];

for (const dialect of DIALECTS) {
  describe(`/openapi.json [${dialect}]`, () => {
    let t: TestApp;
    let spec: Spec;
    before(async () => {
      t = await createTestApp(dialect);
      const res = await t.app.inject('/openapi.json');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      spec = res.json();
    });
    after(() => t.close());

    it('validates as OpenAPI 3.1', async () => {
      assert.equal(spec.openapi, '3.1.0');
      const validator = new Validator();
      const result = await validator.validate(spec as never);
      assert.deepEqual(result.errors, undefined);
      assert.equal(result.valid, true);
      assert.equal(validator.version, '3.1');
    });

    it('declares the oauth2 authorization-code scheme with all 38 scopes', () => {
      const scheme = spec.components.securitySchemes.oauth2;
      assert.equal(scheme.type, 'oauth2');
      const flow = scheme.flows.authorizationCode;
      assert.equal(flow.authorizationUrl, 'http://127.0.0.1:3000/oauth/authorize');
      assert.equal(flow.tokenUrl, 'http://127.0.0.1:3000/api/oauth/token');
      assert.deepEqual(Object.keys(flow.scopes), [...SCOPE_NAMES]);
      for (const description of Object.values(flow.scopes)) assert.ok(description.length > 5);
    });

    it('declares the DPoP scheme (RFC 9449) beside oauth2 on every protected operation and UserInfo', () => {
      assert.deepEqual(
        {
          type: spec.components.securitySchemes.dpop.type,
          scheme: spec.components.securitySchemes.dpop.scheme,
        },
        { type: 'http', scheme: 'DPoP' },
      );
      assert.deepEqual(spec.paths['/api/v1/account']!.get!.security, [
        { oauth2: ['account:read'] },
        { dpop: ['account:read'] },
      ]);
      assert.ok(spec.paths['/api/oauth/userinfo']!.get!.security!.some((s) => s.dpop !== undefined));
    });

    it('declares HTTP Basic client authentication on the token, revocation and introspection endpoints', () => {
      assert.deepEqual(
        {
          type: spec.components.securitySchemes.clientSecretBasic.type,
          scheme: spec.components.securitySchemes.clientSecretBasic.scheme,
        },
        { type: 'http', scheme: 'basic' },
      );
      for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
        assert.deepEqual(spec.paths[path]!.post!.security, [{}, { clientSecretBasic: [] }], path);
      }
    });

    it('every school-API scope guards at least one real operation', () => {
      const guarded = new Set(apiOperations(spec as never).map((op) => op.scope));
      for (const scope of SCOPE_NAMES.filter((s) => !OIDC_SCOPES.includes(s))) {
        assert.ok(guarded.has(scope), `${scope} guards an /api/v1 operation`);
      }
    });

    it('every one of the 38 scopes appears in some operation’s security', () => {
      const named = new Set<string>();
      for (const methods of Object.values(spec.paths)) {
        for (const op of Object.values(methods) as Array<{ security?: Array<Record<string, string[]>> }>) {
          for (const requirement of op.security ?? [])
            for (const scope of requirement.oauth2 ?? []) named.add(scope);
        }
      }
      assert.deepEqual(
        [...SCOPE_NAMES].filter((s) => !named.has(s)),
        [],
      );
    });

    it('every API operation documents its errors with the error schema', () => {
      for (const [path, methods] of Object.entries(spec.paths)) {
        if (!path.startsWith('/api/v1/')) continue;
        for (const [method, op] of Object.entries(methods)) {
          for (const status of ['400', '401', '403', '404']) {
            const schema = op.responses[status]?.content?.['application/json']?.schema;
            assert.ok(
              schema?.properties && 'error' in schema.properties,
              `${method} ${path} documents ${status}`,
            );
          }
        }
      }
    });

    it('describes every route the service answers, these two documents included', () => {
      const described = new Set<string>();
      for (const [path, methods] of Object.entries(spec.paths)) {
        for (const method of Object.keys(methods)) described.add(`${method.toUpperCase()} ${path}`);
      }
      const answered = fastifyRoutes(t.app).filter((route) => !DELIBERATELY_UNDESCRIBED.test(route));
      for (const route of [
        'GET /api/v1/schools/{school}/membership-plans/{plan}',
        'POST /signout',
        'GET /auth.md',
      ]) {
        assert.ok(answered.includes(route), `the route tree was read: ${route}`);
      }
      assert.deepEqual(
        answered.filter((route) => !described.has(route)),
        [],
        'routes missing from /openapi.json',
      );
      assert.deepEqual(
        [...described].filter((route) => !answered.includes(route)),
        [],
        'operations no route answers',
      );
    });

    it('describes /openapi.json and /auth.md with the media types they answer', async () => {
      const types = (path: string) => Object.keys(spec.paths[path]!.get!.responses['200']!.content ?? {});
      assert.deepEqual(types('/openapi.json'), ['application/json']);
      assert.deepEqual(types('/auth.md'), ['text/markdown']);
      assert.deepEqual(types('/account/apps'), ['text/html']);
      assert.deepEqual(types('/assets/pages.css'), ['text/css']);
      for (const [path, type] of [
        ['/openapi.json', 'application/json'],
        ['/auth.md', 'text/markdown'],
      ] as const) {
        const res = await t.app.inject(path);
        assert.equal(res.statusCode, 200);
        assert.equal(String(res.headers['content-type']).split(';')[0], type);
      }
    });

    it('summaries and item descriptions use "an" before a vowel sound ("Get an event", "Get an order")', () => {
      const texts: string[] = [];
      for (const methods of Object.values(spec.paths)) {
        for (const op of Object.values(methods) as Array<{ summary?: string }>) {
          if (op.summary) texts.push(op.summary);
        }
      }
      const schemas = JSON.stringify(spec.paths).match(/"description":"A[n]? [^"]*"/g) ?? [];
      assert.ok(texts.includes('Get an event'), 'Get an event');
      assert.ok(texts.includes('Get an order'), 'Get an order');
      assert.ok(texts.includes('Get a course'), 'Get a course');
      const wrong = [...texts, ...schemas].filter(
        (text) => /\ba [aeio]/i.test(text) || /\ban [^aeiouh\s]/i.test(text),
      );
      assert.deepEqual(wrong, []);
    });

    it('every write operation carries a request example', () => {
      for (const op of apiOperations(spec as never)) {
        if (op.method === 'POST' || op.method === 'PATCH')
          assert.ok(op.example || op.multipart, `${op.method} ${op.path} has an example`);
      }
    });
  });
}
