import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

const GENERATED = /^([0-9a-f]{12})-[0-9a-z]+$/;

describe('headers on every answer (request id, nosniff)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { listen: true });
  });
  after(() => t.close());

  it('gives every answer — a document, a 404, an OAuth error — its own request id and nosniff', async () => {
    const answers = await Promise.all([
      fetch(`${t.url}/.well-known/openid-configuration`),
      fetch(`${t.url}/no/such/route`),
      fetch(`${t.url}/api/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'nope' }),
      }),
    ]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 404, 400],
    );
    const ids = answers.map((a) => a.headers.get('x-request-id') ?? '');
    for (const [i, answer] of answers.entries()) {
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      assert.match(ids[i]!, GENERATED);
    }
    assert.equal(new Set(ids).size, ids.length, 'request ids repeat');
    assert.equal(new Set(ids.map((id) => GENERATED.exec(id)![1])).size, 1, 'one prefix per process');
  });

  it("keeps a client's request id that is safe to log, and replaces one that is not", async () => {
    const kept = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': 'proxy.7f3a_01-B' } });
    assert.equal(kept.headers.get('x-request-id'), 'proxy.7f3a_01-B');
    for (const unsafe of ['has space', 'x'.repeat(65), 'quote"d']) {
      const replaced = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': unsafe } });
      assert.match(replaced.headers.get('x-request-id') ?? '', GENERATED, unsafe);
    }
  });
});
