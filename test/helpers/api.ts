/**
 * Helpers for the school API suites: a seeded demo school with an all-scope owner token, and
 * the operations /openapi.json publishes for /api/v1, with a way to fill their paths.
 */
import type { LightMyRequestResponse } from 'fastify';
import { seedDemoIfEmpty } from '../../src/demo/seed.js';
import { SCOPE_NAMES } from '../../src/oauth/scope-catalogue.js';
import type { TestApp } from './app.js';
import { bearer, mintAccessToken } from './tokens.js';

export interface Operation {
  readonly method: string;
  /** OpenAPI template, e.g. /api/v1/schools/{school}/courses/{course}. */
  readonly path: string;
  readonly scope: string;
  readonly anonymous: boolean;
  readonly example: Record<string, unknown> | undefined;
  readonly multipart: boolean;
}

interface OpenApiOperation {
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { example?: unknown; schema: { examples?: unknown[] } }> };
}

export function apiOperations(spec: {
  paths: Record<string, Record<string, OpenApiOperation>>;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const security = op.security ?? [];
      const scopes = security.flatMap((s) => s.oauth2 ?? []);
      if (scopes.length !== 1)
        throw new Error(`${method} ${path} must need exactly one scope, has ${scopes.join(',')}`);
      const content = op.requestBody?.content ?? {};
      const json = content['application/json'];
      ops.push({
        method: method.toUpperCase(),
        path,
        scope: scopes[0]!,
        anonymous: security.some((s) => Object.keys(s).length === 0),
        example: (json?.example ?? json?.schema.examples?.[0]) as Record<string, unknown> | undefined,
        multipart: 'multipart/form-data' in content,
      });
    }
  }
  return ops;
}

export const ALL_SCOPES: readonly string[] = SCOPE_NAMES;

export interface Demo {
  readonly accountId: string;
  readonly schoolId: string;
  /** All 38 scopes, acting as the demo school's owner. */
  readonly ownerToken: string;
}

export async function seedDemo(t: TestApp): Promise<Demo> {
  const seed = await seedDemoIfEmpty(t.ctx.store.instances, t.clock.now());
  if (!seed) throw new Error('the test database was not empty');
  const ownerToken = await mintAccessToken(t, { accountId: seed.accountId, scopes: ALL_SCOPES });
  return { accountId: seed.accountId, schoolId: seed.schoolId, ownerToken };
}

/** A one-file multipart body (what `curl -F file=@x` sends). */
export function multipartBody(filename: string, content: string | Buffer, type = 'text/plain') {
  const boundary = `----schoolauth${Date.now()}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
  const payload = Buffer.concat([
    Buffer.from(head),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export async function call(
  t: TestApp,
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: { ...(options.token ? bearer(options.token) : {}), ...options.headers },
    ...(options.body !== undefined ? { payload: options.body as Record<string, unknown> } : {}),
  });
}
