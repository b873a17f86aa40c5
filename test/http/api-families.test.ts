/**
 * Every generic family, from its definition: create/read/update/delete round trip, validation
 * errors naming the field, cursor pagination, and isolation between schools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectionPath } from '../../src/api/builder.js';
import { exampleBody } from '../../src/api/schemas.js';
import type { FamilyDefinition, FieldSpec } from '../../src/school/define.js';
import { FAMILIES } from '../../src/school/families/index.js';
import { ALL_SCOPES, call, type Demo, seedDemo } from '../helpers/api.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { createPerson } from '../helpers/flow.js';
import { mintAccessToken } from '../helpers/tokens.js';

const writable = FAMILIES.filter((f) => f.operations.includes('create'));
const readOnly = FAMILIES.filter((f) => !f.operations.includes('create'));

/** A valid value different from the current one. */
function changedValue(f: FieldSpec, current: unknown): string {
  if (f.kind === 'enum') return f.values!.find((v) => v !== current)!;
  if (f.kind === 'datetime') return '2030-01-01T00:00:00Z';
  return f.pattern ? 'CHANGED-1' : 'changed';
}

/** A value of the wrong JSON type for a field. */
const wrongType = (kind: string): unknown =>
  kind === 'integer' || kind === 'boolean' ? 'not a number' : 12345;

for (const dialect of DIALECTS) {
  describe(`school API families [${dialect}]`, () => {
    let t: TestApp;
    let demo: Demo;
    let outsider: string;
    let otherSlug: string;

    /** The demo school's collection URL for a family, with real ancestor ids. */
    async function collection(
      def: FamilyDefinition,
      slug = 'demo',
      token = demo.ownerToken,
    ): Promise<string> {
      let url = '';
      for (const part of collectionPath(def).split('/').slice(1)) {
        if (part === ':school') url += `/${slug}`;
        else if (part.startsWith(':')) {
          const res = await call(t, 'GET', `/api/v1${url}`, { token });
          url += `/${(res.json() as { items: Array<{ id: string }> }).items[0]!.id}`;
        } else url += `/${part}`;
      }
      return `/api/v1${url}`;
    }

    async function exampleFor(def: FamilyDefinition): Promise<Record<string, unknown>> {
      const body = exampleBody(def);
      for (const [name, f] of Object.entries(def.fields)) {
        if (f.kind !== 'ref') continue;
        const refFamily = FAMILIES.find((x) => x.table === f.ref)!;
        const res = await call(t, 'GET', await collection(refFamily), { token: demo.ownerToken });
        body[name] = (res.json() as { items: Array<{ id: string }> }).items[0]!.id;
      }
      return body;
    }

    before(async () => {
      t = await createTestApp(dialect);
      demo = await seedDemo(t);
      const other = await createPerson(t.ctx.store, { now: t.clock.now() });
      outsider = await mintAccessToken(t, { accountId: other.account.id, scopes: ALL_SCOPES });
      otherSlug = (await call(t, 'GET', '/api/v1/schools', { token: outsider })).json().items[0].slug;
    });
    after(() => t.close());

    for (const def of writable) {
      it(`${def.plural}: create, read, update and delete round trip`, async () => {
        const url = await collection(def);
        const body = await exampleFor(def);
        const created = await call(t, 'POST', url, { token: demo.ownerToken, body });
        assert.equal(created.statusCode, 201, created.body);
        const item = created.json();
        for (const [name, value] of Object.entries(body)) assert.deepEqual(item[name], value, name);
        const itemUrl = `${url}/${item.id}`;
        assert.deepEqual((await call(t, 'GET', itemUrl, { token: demo.ownerToken })).json(), item);
        const [field, spec] = Object.entries(def.fields).find(([, f]) =>
          ['string', 'text', 'enum', 'datetime'].includes(f.kind),
        )!;
        const changed = changedValue(spec, item[field]);
        const patched = await call(t, 'PATCH', itemUrl, {
          token: demo.ownerToken,
          body: { [field]: changed },
        });
        assert.equal(patched.statusCode, 200, patched.body);
        assert.equal(patched.json()[field], changed);
        const deleted = await call(t, 'DELETE', itemUrl, { token: demo.ownerToken });
        assert.equal(deleted.statusCode, 204);
        assert.equal((await call(t, 'GET', itemUrl, { token: demo.ownerToken })).statusCode, 404);
        assert.equal((await call(t, 'DELETE', itemUrl, { token: demo.ownerToken })).statusCode, 404);
      });

      it(`${def.plural}: bad input answers 400 naming the field`, async () => {
        const url = await collection(def);
        const body = await exampleFor(def);
        const required = Object.entries(def.fields).find(([, f]) => f.required)![0];
        const { [required]: _, ...missing } = body;
        const noField = await call(t, 'POST', url, { token: demo.ownerToken, body: missing });
        assert.equal(noField.statusCode, 400);
        assert.match(noField.json().error_description, new RegExp(`"${required}"`));
        for (const [name, f] of Object.entries(def.fields)) {
          if (f.kind === 'json') continue;
          const res = await call(t, 'POST', url, {
            token: demo.ownerToken,
            body: { ...body, [name]: wrongType(f.kind) },
          });
          assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
          assert.equal(res.json().error, 'invalid_request');
          assert.match(res.json().error_description, new RegExp(`"${name}"`), name);
        }
        const unknown = await call(t, 'POST', url, {
          token: demo.ownerToken,
          body: { ...body, colour: 'red' },
        });
        assert.match(unknown.json().error_description, /"colour"/);
        const first = (await call(t, 'GET', url, { token: demo.ownerToken })).json().items[0].id;
        const empty = await call(t, 'PATCH', `${url}/${first}`, { token: demo.ownerToken, body: {} });
        assert.equal(empty.statusCode, 400);
      });

      it(`${def.plural}: pages follow next_cursor through every item exactly once`, async () => {
        const url = await collection(def);
        for (let i = 0; i < 3; i++)
          await call(t, 'POST', url, { token: demo.ownerToken, body: await exampleFor(def) });
        const all = (await call(t, 'GET', `${url}?limit=100`, { token: demo.ownerToken }))
          .json()
          .items.map((x: { id: string }) => x.id);
        assert.ok(all.length >= 4);
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const res = await call(t, 'GET', `${url}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
            token: demo.ownerToken,
          });
          assert.equal(res.statusCode, 200, res.body);
          const page = res.json() as { items: Array<{ id: string }>; next_cursor: string | null };
          assert.ok(page.items.length <= 2);
          seen.push(...page.items.map((x) => x.id));
          cursor = page.next_cursor;
        } while (cursor);
        assert.deepEqual(seen, all);
        const tooMany = await call(t, 'GET', `${url}?limit=101`, { token: demo.ownerToken });
        assert.equal(tooMany.statusCode, 400);
        assert.match(tooMany.json().error_description, /limit/);
        const badCursor = await call(t, 'GET', `${url}?cursor=%21%21`, { token: demo.ownerToken });
        assert.equal(badCursor.statusCode, 400);
        assert.match(badCursor.json().error_description, /cursor/);
      });
    }

    for (const def of FAMILIES) {
      it(`${def.plural}: a person of another school can neither see private items nor change anything`, async () => {
        const url = await collection(def);
        const own = (await call(t, 'GET', `${url}?limit=100`, { token: demo.ownerToken })).json()
          .items as Array<{ id: string }>;
        const seenByOutsider = await call(t, 'GET', `${url}?limit=100`, { token: outsider });
        if (def.publicWhen && !def.parent) {
          assert.equal(seenByOutsider.statusCode, 200);
          const visible = seenByOutsider.json().items as Array<Record<string, unknown>>;
          assert.ok(visible.length < own.length, 'drafts and private items stay hidden');
          for (const item of visible)
            assert.equal(
              item[def.publicWhen.column],
              def.publicWhen.column === 'status' ? 'published' : true,
            );
        } else {
          assert.equal(seenByOutsider.statusCode, 403, seenByOutsider.body);
        }
        // Through the outsider's own school, the demo school's ids do not exist.
        const mine = url.replace('/schools/demo/', `/schools/${otherSlug}/`);
        const target = `${url}/${own[0]!.id}`;
        const viaOwn = `${mine}/${own[0]!.id}`;
        assert.equal((await call(t, 'GET', viaOwn, { token: outsider })).statusCode, 404);
        if (!def.operations.includes('create')) return;
        const body = await exampleFor(def);
        assert.equal((await call(t, 'POST', url, { token: outsider, body })).statusCode, 403);
        assert.equal(
          (
            await call(t, 'PATCH', target, {
              token: outsider,
              body: { [Object.keys(def.fields)[0]!]: body[Object.keys(def.fields)[0]!] },
            })
          ).statusCode,
          403,
        );
        assert.equal((await call(t, 'DELETE', target, { token: outsider })).statusCode, 403);
        assert.equal((await call(t, 'DELETE', viaOwn, { token: outsider })).statusCode, 404);
        assert.equal(
          (await call(t, 'GET', target, { token: demo.ownerToken })).statusCode,
          200,
          'still there, unchanged',
        );
      });
    }

    for (const def of readOnly) {
      it(`${def.plural}: read-only — listed and fetched, no write operation exists`, async () => {
        const url = await collection(def);
        const list = await call(t, 'GET', url, { token: demo.ownerToken });
        assert.equal(list.statusCode, 200);
        const first = list.json().items[0];
        assert.ok(first, 'the demo school has some');
        assert.deepEqual(
          (await call(t, 'GET', `${url}/${first.id}`, { token: demo.ownerToken })).json(),
          first,
        );
        assert.equal((await call(t, 'POST', url, { token: demo.ownerToken, body: {} })).statusCode, 404);
      });
    }
  });
}
