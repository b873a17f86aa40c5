/** Storage uploads: multipart, size-limited (413), stored under DATA_DIR/uploads, served by URL. */
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, type Demo, multipartBody, seedDemo } from '../helpers/api.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { mintAccessToken } from '../helpers/tokens.js';

for (const dialect of DIALECTS) {
  describe(`storage uploads [${dialect}]`, () => {
    let t: TestApp;
    let demo: Demo;
    let token: string;
    before(async () => {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'sa-uploads-')), 'data');
      t = await createTestApp(dialect, { env: { UPLOAD_MAX_BYTES: '1024', DATA_DIR: dataDir } });
      demo = await seedDemo(t);
      token = await mintAccessToken(t, { accountId: demo.accountId, scopes: ['storage:write'] });
    });
    after(() => t.close());

    const upload = (body: { payload: Buffer; headers: Record<string, string> }, auth = token) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/schools/demo/uploads',
        payload: body.payload,
        headers: { ...body.headers, authorization: `Bearer ${auth}` },
      });

    it('stores the file and answers with a URL that serves it, sandboxed', async () => {
      const res = await upload(
        multipartBody('../../etc/notes <1>.html', '<script>alert(1)</script>', 'text/html'),
      );
      assert.equal(res.statusCode, 201, res.body);
      const file = res.json();
      assert.equal(file.filename, 'notes_1_.html');
      assert.equal(file.size, 25);
      assert.ok(file.url.startsWith(`${t.config.issuer}/uploads/`));
      const served = await t.app.inject(new URL(file.url).pathname);
      assert.equal(served.statusCode, 200);
      assert.equal(served.body, '<script>alert(1)</script>');
      assert.match(String(served.headers['content-disposition']), /^attachment/);
      assert.match(String(served.headers['content-security-policy']), /sandbox/);
      assert.equal((await t.app.inject(`/uploads/${file.id}/other.html`)).statusCode, 404);
    });

    it('an upload is private to the service: the file 0600, DATA_DIR and its uploads directory 0700', async () => {
      const res = await upload(multipartBody('grades.csv', 'ada,A\n', 'text/csv'));
      assert.equal(res.statusCode, 201, res.body);
      const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
      assert.equal(mode(join(t.config.dataDir, 'uploads', res.json().id)), '600');
      assert.equal(mode(join(t.config.dataDir, 'uploads')), '700');
      assert.equal(mode(t.config.dataDir), '700');
    });

    it('images are served inline', async () => {
      const res = await upload(multipartBody('logo.png', Buffer.from([137, 80, 78, 71]), 'image/png'));
      const served = await t.app.inject(new URL(res.json().url).pathname);
      assert.match(String(served.headers['content-disposition']), /^inline/);
      assert.equal(served.headers['content-type'], 'image/png');
    });

    it('a file over UPLOAD_MAX_BYTES answers 413', async () => {
      const res = await upload(multipartBody('big.bin', Buffer.alloc(2048, 1)));
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().error, 'payload_too_large');
    });

    it('a garbled multipart body answers 400 JSON and stores nothing', async () => {
      const before = await t.ctx.db.selectFrom('uploads').select('id').execute();
      for (const payload of [
        Buffer.from([0x00, 0xff, 0x10, 0x7b, 0x22]),
        Buffer.from(
          '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nno closing boundary',
        ),
        Buffer.from('--x\r\nthis is not a header\r\n\r\n--x--'),
      ]) {
        const res = await upload({ payload, headers: { 'content-type': 'multipart/form-data; boundary=x' } });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error, 'invalid_request');
      }
      assert.equal((await t.ctx.db.selectFrom('uploads').select('id').execute()).length, before.length);
    });

    it('a missing file part is 400, a non-multipart body 415, anonymous 403', async () => {
      const boundary = 'xyz';
      const noFile = await upload({
        payload: Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="other"\r\n\r\nvalue\r\n--${boundary}--\r\n`,
        ),
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(noFile.statusCode, 400);
      assert.match(noFile.json().error_description, /"file"/);
      const json = await call(t, 'POST', '/api/v1/schools/demo/uploads', { token, body: { file: 'x' } });
      assert.equal(json.statusCode, 415);
      const anonymous = await t.app.inject({
        method: 'POST',
        url: '/api/v1/schools/demo/uploads',
        ...multipartBody('a.txt', 'a'),
      });
      assert.equal(anonymous.statusCode, 403);
      assert.equal(anonymous.headers['www-authenticate'], undefined);
    });

    it('another operation answers a multipart body 415 and points at the accepted type: only uploads read multipart', async () => {
      const courseToken = await mintAccessToken(t, { accountId: demo.accountId, scopes: ['courses:write'] });
      const body = multipartBody('course.txt', 'a course');
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/schools/demo/courses',
        payload: body.payload,
        headers: { ...body.headers, authorization: `Bearer ${courseToken}` },
      });
      assert.equal(res.statusCode, 415);
      assert.equal(res.json().error, 'unsupported_media_type');
      assert.match(res.json().error_description, /unsupported Content-Type .* see \/openapi\.json/);
    });
  });
}
