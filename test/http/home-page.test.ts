/**
 * Issue 24 §1: the URL printed at start leads somewhere. `/` is a page like the others (layout,
 * stylesheet, no script, the pages' headers) linking to what people and developers came for, and
 * `/favicon.ico` is an icon, not a 404 and a log line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { captureLogLines } from '../helpers/log-lines.js';

for (const dialect of DIALECTS) {
  describe(`home page and icon [${dialect}]`, () => {
    let t: TestApp;
    const { sink, lines: logLines } = captureLogLines();
    before(async () => {
      t = await createTestApp(dialect, {
        listen: true,
        env: { LOG_LEVEL: 'info', LOG_REQUESTS: 'errors' },
        logStream: sink,
      });
    });
    after(() => t.close());

    it('/ is an HTML page with the layout and headers of the other pages, and no script', async () => {
      const home = await fetch(`${t.url}/`);
      assert.equal(home.status, 200);
      const signin = await fetch(`${t.url}/signin`);
      for (const name of ['content-type', 'content-security-policy', 'x-frame-options', 'referrer-policy']) {
        assert.equal(home.headers.get(name), signin.headers.get(name), name);
      }
      assert.equal(home.headers.get('content-type'), 'text/html; charset=utf-8');
      const body = await home.text();
      assert.match(body, /<link rel="stylesheet" href="\/assets\/pages.css">/);
      assert.match(body, /<main class="card">/);
      assert.doesNotMatch(body, /<script|\son[a-z]+=/i, 'no script and no inline handler');
      assert.ok(body.includes(`<code>${t.url}</code>`), 'names the issuer');
    });

    it('/ links to sign-in, Connected apps, /auth.md, /openapi.json and the metadata, and every link answers', async () => {
      const body = await (await fetch(`${t.url}/`)).text();
      const hrefs = [...body.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]!);
      assert.deepEqual(hrefs, [
        '/signin',
        '/account/apps',
        '/auth.md',
        '/openapi.json',
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
        '/.well-known/oauth-protected-resource',
        '/.well-known/jwks.json',
      ]);
      for (const href of hrefs) {
        const answer = await fetch(`${t.url}${href}`, { redirect: 'manual' });
        assert.ok(answer.status === 200 || answer.status === 303, `${href}: ${answer.status}`);
      }
    });

    it('/favicon.ico answers a 32×32 ICO, cacheable, with no log line', async () => {
      logLines.length = 0;
      const icon = await fetch(`${t.url}/favicon.ico`);
      assert.equal(icon.status, 200);
      assert.equal(icon.headers.get('content-type'), 'image/x-icon');
      assert.match(icon.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
      const bytes = Buffer.from(await icon.arrayBuffer());
      assert.deepEqual(
        [bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)],
        [0, 1, 1],
        'ICONDIR: an icon with one image',
      );
      assert.deepEqual(
        [bytes[6], bytes[7], bytes.readUInt16LE(12)],
        [32, 32, 32],
        '32×32, 32 bits per pixel',
      );
      const offset = bytes.readUInt32LE(18);
      assert.equal(offset + bytes.readUInt32LE(14), bytes.length, 'the image fills the rest of the file');
      assert.equal(bytes.readUInt32LE(offset), 40, 'a BITMAPINFOHEADER');
      const revalidated = await fetch(`${t.url}/favicon.ico`, {
        headers: { 'if-none-match': icon.headers.get('etag')! },
      });
      assert.equal(revalidated.status, 304);
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(
        logLines.filter((l) => l.msg === 'request completed'),
        [],
        'an answered icon is not an error worth a log line',
      );
    });
  });
}
