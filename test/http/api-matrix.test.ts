/**
 * The access matrix, generated from /openapi.json so that no /api/v1 operation escapes: for each
 * one, anonymous behaviour, a token without its scope, a token with only its scope, and every
 * kind of bad token (docs/api.md "Calling it").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import {
  ALL_SCOPES,
  apiOperations,
  call,
  type Demo,
  multipartBody,
  type Operation,
  seedDemo,
} from '../helpers/api.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { mintAccessToken } from '../helpers/tokens.js';

/** Reference fields in example bodies, and the collection whose first item fills them. */
const REF_COLLECTIONS: Record<string, string> = { student_id: 'students', plan_id: 'membership-plans' };

const RESOURCE_METADATA =
  /resource_metadata="http:\/\/127\.0\.0\.1:3000\/\.well-known\/oauth-protected-resource"/;

class Fixtures {
  private readonly firstIds = new Map<string, string>();
  constructor(
    private readonly t: TestApp,
    private readonly token: string | undefined,
  ) {}

  /** The first item of a collection as this caller sees it. */
  async firstId(collection: string): Promise<string> {
    const cached = this.firstIds.get(collection);
    if (cached) return cached;
    const res = await call(this.t, 'GET', collection, this.token ? { token: this.token } : {});
    assert.equal(res.statusCode, 200, `listing ${collection}: ${res.body}`);
    const id = (res.json() as { items: Array<{ id: string }> }).items[0]?.id;
    assert.ok(id, `${collection} has an item to use`);
    this.firstIds.set(collection, id);
    return id;
  }

  /** Fills {school} with the demo school and every other parameter with a real id. */
  async url(template: string): Promise<string> {
    let url = '';
    for (const segment of template.split('/').slice(1)) {
      const param = /^\{(.+)\}$/.exec(segment)?.[1];
      if (!param) url += `/${segment}`;
      else url += `/${param === 'school' ? 'demo' : await this.firstId(url)}`;
    }
    return url;
  }

  async body(op: Operation): Promise<Record<string, unknown> | undefined> {
    if (!op.example) return undefined;
    const body = { ...op.example };
    for (const key of Object.keys(body)) {
      const collection = REF_COLLECTIONS[key];
      if (collection) body[key] = await this.firstId(`/api/v1/schools/demo/${collection}`);
    }
    return body;
  }
}

const name = (op: Operation) => `${op.method} ${op.path}`;

for (const dialect of DIALECTS) {
  describe(`API access matrix from /openapi.json [${dialect}]`, () => {
    let t: TestApp;
    let demo: Demo;
    let ops: Operation[];
    let owner: Fixtures;
    let anonymous: Fixtures;

    before(async () => {
      t = await createTestApp(dialect);
      demo = await seedDemo(t);
      ops = apiOperations((await t.app.inject('/openapi.json')).json());
      owner = new Fixtures(t, demo.ownerToken);
      anonymous = new Fixtures(t, undefined);
    });
    after(() => t.close());

    const send = async (op: Operation, url: string, token?: string): Promise<LightMyRequestResponse> => {
      if (op.multipart) {
        const { payload, headers } = multipartBody('notes.txt', 'hello');
        return t.app.inject({
          method: op.method as 'POST',
          url,
          payload,
          headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        });
      }
      return call(t, op.method, url, {
        ...(token ? { token } : {}),
        ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { body: await owner.body(op) }),
      });
    };

    /** The URL to act on; a DELETE gets a fresh item so the fixtures stay intact. */
    const target = async (op: Operation, fixtures: Fixtures): Promise<string> => {
      if (op.method !== 'DELETE') return fixtures.url(op.path);
      const collection = op.path.replace(/\/\{[^}]+\}$/, '');
      const create = ops.find((o) => o.method === 'POST' && o.path === collection);
      assert.ok(create, `${name(op)} has a create operation to make an item to delete`);
      const res = await send(create, await owner.url(collection), demo.ownerToken);
      assert.equal(res.statusCode, 201, `creating for ${name(op)}: ${res.body}`);
      return `${await owner.url(collection)}/${(res.json() as { id: string }).id}`;
    };

    it('publishes a rich set of operations, each needing exactly one scope', () => {
      assert.ok(ops.length >= 70, `found ${ops.length} operations`);
    });

    it('anonymous: public operations answer 2xx, the rest 403 JSON without a challenge', async () => {
      for (const op of ops) {
        const url = op.anonymous ? await anonymous.url(op.path) : await owner.url(op.path);
        const res = await send(op, url);
        if (op.anonymous) {
          assert.equal(res.statusCode, 200, `${name(op)} serves anonymous: ${res.body}`);
        } else {
          assert.equal(res.statusCode, 403, `${name(op)} refuses anonymous: ${res.body}`);
          assert.equal(res.headers['www-authenticate'], undefined, `${name(op)} never challenges anonymous`);
          assert.equal(res.json().error, 'forbidden');
        }
      }
    });

    it('a token without the operation’s scope gets 403 insufficient_scope naming it', async () => {
      const byScope = new Map<string, string>();
      for (const op of ops) {
        let token = byScope.get(op.scope);
        if (!token) {
          token = await mintAccessToken(t, {
            accountId: demo.accountId,
            scopes: ALL_SCOPES.filter((s) => s !== op.scope),
          });
          byScope.set(op.scope, token);
        }
        const res = await send(op, await owner.url(op.path), token);
        assert.equal(res.statusCode, 403, `${name(op)}: ${res.body}`);
        assert.equal(res.json().error, 'insufficient_scope');
        const challenge = String(res.headers['www-authenticate']);
        assert.match(challenge, /^Bearer error="insufficient_scope"/, name(op));
        assert.ok(challenge.includes(`scope="${op.scope}"`), `${name(op)} names ${op.scope}: ${challenge}`);
        assert.match(challenge, RESOURCE_METADATA);
      }
    });

    it('a token with only the operation’s scope succeeds', async () => {
      for (const op of ops) {
        const token = await mintAccessToken(t, { accountId: demo.accountId, scopes: [op.scope] });
        const res = await send(op, await target(op, owner), token);
        assert.ok(
          res.statusCode >= 200 && res.statusCode < 300,
          `${name(op)} → ${res.statusCode} ${res.body}`,
        );
      }
    });

    it('revoked, expired, malformed and wrong-audience tokens get 401 invalid_token with the challenge', async () => {
      const revoked = await mintAccessToken(t, {
        accountId: demo.accountId,
        scopes: ALL_SCOPES,
        revoked: true,
      });
      const expired = await mintAccessToken(t, { accountId: demo.accountId, scopes: ALL_SCOPES, ttl: 60 });
      const elsewhere = await mintAccessToken(t, {
        accountId: demo.accountId,
        scopes: ALL_SCOPES,
        resource: 'https://other.example',
      });
      t.clock.advance(61);
      const authorizations = {
        revoked: `Bearer ${revoked}`,
        expired: `Bearer ${expired}`,
        'wrong audience': `Bearer ${elsewhere}`,
        unknown: 'Bearer sa_at_not-a-token',
        'two values': `Bearer ${demo.ownerToken} extra`,
        'not Bearer': `Basic ${Buffer.from('a:b').toString('base64')}`,
        empty: 'Bearer ',
      };
      for (const op of ops) {
        const url = await owner.url(op.path);
        for (const [kind, authorization] of Object.entries(authorizations)) {
          const res = await t.app.inject({ method: op.method as 'GET', url, headers: { authorization } });
          assert.equal(res.statusCode, 401, `${name(op)} with a ${kind} token: ${res.body}`);
          assert.equal(res.json().error, 'invalid_token');
          const challenge = String(res.headers['www-authenticate']);
          assert.match(
            challenge,
            /^Bearer error="invalid_token", error_description="[^"]+"/,
            `${kind}: ${challenge}`,
          );
          assert.match(challenge, RESOURCE_METADATA);
        }
      }
    });
  });
}
