/**
 * Issue 19 §6: school API fields that hold a URL (logo, file, meeting link, lesson media) accept
 * only https URLs — http too on a loopback http issuer — and answer 400 naming the field for
 * javascript:, data: and every other scheme, changing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, type Demo, seedDemo } from '../helpers/api.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';

/** Refused by every URL field, also by those that take text (a value that begins with a URL). */
const HOSTILE = [
  'javascript:alert(document.domain)',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  '\u0001javascript:alert(1)',
  'java\tscript:alert(1)',
  'javascript: alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'ftp://example.com/logo.png',
  'https://user:pass@example.com/logo.png',
];
/** Refused where the whole value must be a URL. */
const NOT_A_URL = ['https://exa mple.com/logo.png', 'logo.png', '/uploads/logo.png'];

interface UrlField {
  readonly field: string;
  /** The request that sets the field to `value`. */
  readonly send: (t: TestApp, demo: Demo, value: string) => ReturnType<typeof call>;
  /** Free text stays accepted (fields that hold a place or a Markdown body, or a URL). */
  readonly text?: readonly string[];
}

async function firstId(t: TestApp, demo: Demo, path: string): Promise<string> {
  const res = await call(t, 'GET', `/api/v1/schools/demo/${path}`, { token: demo.ownerToken });
  return res.json().items[0].id;
}

const FIELDS: readonly UrlField[] = [
  {
    field: 'logo_url',
    send: (t, demo, value) =>
      call(t, 'PATCH', '/api/v1/schools/demo/appearance', {
        token: demo.ownerToken,
        body: { logo_url: value },
      }),
  },
  {
    field: 'file_url',
    send: (t, demo, value) =>
      call(t, 'POST', '/api/v1/schools/demo/digital-products', {
        token: demo.ownerToken,
        body: { name: 'Workbook', price_cents: 100, file_url: value },
      }),
  },
  {
    field: 'location',
    send: async (t, demo, value) =>
      call(t, 'PATCH', `/api/v1/schools/demo/events/${await firstId(t, demo, 'events')}`, {
        token: demo.ownerToken,
        body: { location: value },
      }),
    text: ['Online', 'Room: 101', 'Hall 2, 10:30', ''],
  },
  {
    field: 'content',
    send: async (t, demo, value) => {
      const course = await firstId(t, demo, 'courses');
      const section = await firstId(t, demo, `courses/${course}/sections`);
      return call(t, 'POST', `/api/v1/schools/demo/courses/${course}/sections/${section}/lessons`, {
        token: demo.ownerToken,
        body: { title: 'Video', kind: 'video', content: value },
      });
    },
    text: [
      'A variable stands for a number.',
      'Note: read chapter 2 first.',
      'https://example.com is our site',
    ],
  },
];

for (const dialect of DIALECTS) {
  describe(`school API URL fields on an https issuer [${dialect}]`, () => {
    let t: TestApp;
    let demo: Demo;
    before(async () => {
      t = await createTestApp(dialect, { env: { ISSUER: 'https://school.example' } });
      demo = await seedDemo(t);
    });
    after(() => t.close());

    for (const { field, send, text } of FIELDS) {
      it(`${field}: javascript:, data:, http and every other non-https URL answer 400 naming the field`, async () => {
        const before = (await call(t, 'GET', '/api/v1/schools/demo/appearance')).body;
        const refused = [...HOSTILE, 'http://example.com/logo.png', ...(text ? [] : NOT_A_URL)];
        for (const value of refused) {
          const res = await send(t, demo, value);
          assert.equal(res.statusCode, 400, `${JSON.stringify(value)}: ${res.body}`);
          assert.equal(res.json().error, 'invalid_request');
          assert.match(res.json().error_description, new RegExp(`^field "${field}" .*https URL`));
          assert.match(res.headers['content-type'] as string, /^application\/json/);
        }
        assert.equal((await call(t, 'GET', '/api/v1/schools/demo/appearance')).body, before);
      });

      it(`${field}: an https URL is accepted${text ? ', and so is plain text' : ''}`, async () => {
        for (const value of ['https://example.com/a/b.png?x=1', ...(text ?? [])]) {
          const res = await send(t, demo, value);
          assert.ok(
            res.statusCode === 200 || res.statusCode === 201,
            `${JSON.stringify(value)}: ${res.body}`,
          );
          assert.equal(res.json()[field], value);
        }
      });
    }

    it('"" clears a URL field', async () => {
      for (const { send } of FIELDS.slice(0, 2)) {
        const res = await send(t, demo, '');
        assert.ok(res.statusCode < 300, res.body);
      }
    });

    it('/openapi.json shows the URL format of every URL field, in every body that sets it', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const school = '/api/v1/schools/{school}';
      const lessons = `${school}/courses/{course}/sections/{section}/lessons`;
      const bodies: ReadonlyArray<[path: string, method: string, field: string, format: string]> = [
        [`${school}/appearance`, 'patch', 'logo_url', 'https-url'],
        [`${school}/digital-products`, 'post', 'file_url', 'https-url'],
        [`${school}/digital-products/{product}`, 'patch', 'file_url', 'https-url'],
        [`${school}/events`, 'post', 'location', 'text-or-https-url'],
        [`${school}/events/{event}`, 'patch', 'location', 'text-or-https-url'],
        [lessons, 'post', 'content', 'text-or-https-url'],
        [`${lessons}/{lesson}`, 'patch', 'content', 'text-or-https-url'],
      ];
      for (const [path, method, field, format] of bodies) {
        const schema = doc.paths[path][method].requestBody.content['application/json'].schema;
        assert.equal(schema.properties[field].format, format, `${method} ${path} ${field}`);
      }
    });
  });
}

describe('school API URL fields on a loopback http issuer', () => {
  let t: TestApp;
  let demo: Demo;
  before(async () => {
    t = await createTestApp('sqlite');
    demo = await seedDemo(t);
  });
  after(() => t.close());

  it('accept http URLs (local upload URLs) and still refuse other schemes', async () => {
    assert.match(t.config.issuer, /^http:\/\/127\.0\.0\.1/);
    for (const { field, send } of FIELDS) {
      const ok = await send(t, demo, `${t.config.issuer}/uploads/upl_1/logo.png`);
      assert.ok(ok.statusCode < 300, `${field}: ${ok.body}`);
      for (const value of HOSTILE) {
        const res = await send(t, demo, value);
        assert.equal(res.statusCode, 400, `${field} ${JSON.stringify(value)}: ${res.body}`);
      }
    }
  });
});
