/**
 * The metadata-document cache (draft §5.2, docs/decisions.md "Client ID Metadata Documents"): one fetch in flight per URL, valid documents
 * kept within the cache bounds, failures and invalid documents never kept, a bounded size, and one
 * report per real fetch. The fetcher is a stand-in here (test/http/client-metadata-fetch.test.ts
 * fetches for real).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FetchReport, MetadataDocuments } from '../../src/oauth/client-id-metadata/documents.js';
import type { Fetched } from '../../src/oauth/client-id-metadata/fetch.js';
import { TestClock } from '../helpers/app.js';

const A = 'https://a.example.com/client.json';
const B = 'https://b.example.com/client.json';

const valid = (url: string, cacheControl = 'max-age=600'): Fetched => ({
  ok: true,
  body: Buffer.from(
    JSON.stringify({ client_id: url, client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'] }),
  ),
  headers: { cacheControl, expires: undefined, date: undefined },
});

function setup(answer: (url: string, n: number) => Fetched, entries = 100) {
  const clock = new TestClock();
  const calls: string[] = [];
  const reports: FetchReport[] = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const documents = new MetadataDocuments({
    fetch: { connectTimeoutMs: 1, readTimeoutMs: 1, allowLoopback: false, ca: undefined },
    cache: { min: 60, max: 3600, entries },
    now: clock.now,
    limit: () => 42,
    observe: async (report) => {
      reports.push(report);
    },
    fetcher: async (url) => {
      calls.push(url);
      await gate;
      return answer(url, calls.length);
    },
  });
  const hold = () => {
    gate = new Promise((resolve) => {
      release = resolve;
    });
  };
  return { documents, clock, calls, reports, hold, release: () => release() };
}

describe('metadata documents cache (draft §5.2)', () => {
  it('concurrent requests for one URL share one fetch', async () => {
    const s = setup((url) => valid(url));
    s.hold();
    const all = Promise.all(Array.from({ length: 5 }, () => s.documents.resolve(A, '127.0.0.1')));
    assert.equal(s.documents.limited(A, 'ip'), undefined, 'joining a fetch under way costs no fetch');
    s.release();
    const results = await all;
    assert.ok(results.every((r) => r.ok));
    assert.equal(s.calls.length, 1);
    assert.equal(s.reports.length, 1);
    assert.equal(s.reports[0]!.outcome, 'ok');
    assert.equal(s.reports[0]!.cacheSeconds, 600);
    assert.equal(s.documents.limited(A, 'ip'), undefined, 'a cached document costs no fetch');
    assert.equal(s.documents.limited(B, 'ip'), 42, 'a new fetch is counted');
  });

  it('a valid document is kept for its cache lifetime, then fetched again', async () => {
    const s = setup((url) => valid(url));
    await s.documents.resolve(A, 'ip');
    s.clock.advance(599);
    assert.ok(s.documents.cached(A));
    await s.documents.resolve(A, 'ip');
    assert.equal(s.calls.length, 1);
    s.clock.advance(1);
    assert.equal(s.documents.cached(A), undefined);
    await s.documents.resolve(A, 'ip');
    assert.equal(s.calls.length, 2);
  });

  it('failures and invalid documents are never cached', async () => {
    const answers: Fetched[] = [
      { ok: false, failure: 'status', reason: 'it answered HTTP 500, not 200' },
      {
        ok: true,
        body: Buffer.from('{"client_id":"https://other.example/c"}'),
        headers: { cacheControl: 'max-age=3600', expires: undefined, date: undefined },
      },
      valid(A),
    ];
    const s = setup((_url, n) => answers[n - 1]!);
    const first = await s.documents.resolve(A, 'ip');
    assert.deepEqual(first, {
      ok: false,
      failure: 'status',
      reason: 'could not be fetched: it answered HTTP 500, not 200',
    });
    const second = await s.documents.resolve(A, 'ip');
    assert.equal(second.ok, false);
    assert.equal(!second.ok && second.failure, 'invalid_document');
    assert.match(!second.ok ? second.reason : '', /is not a valid metadata document: it names client_id/);
    assert.ok((await s.documents.resolve(A, 'ip')).ok);
    assert.equal(s.calls.length, 3);
    assert.deepEqual(
      s.reports.map((r) => r.outcome),
      ['status', 'invalid_document', 'ok'],
    );
  });

  it('no-store is kept for the lower bound only', async () => {
    const s = setup((url) => valid(url, 'no-store'));
    await s.documents.resolve(A, 'ip');
    s.clock.advance(59);
    assert.ok(s.documents.cached(A));
    s.clock.advance(1);
    assert.equal(s.documents.cached(A), undefined);
  });

  it('holds at most CLIENT_METADATA_CACHE_ENTRIES documents, dropping the least recently used', async () => {
    const C = 'https://c.example.com/client.json';
    const s = setup((url) => valid(url), 2);
    await s.documents.resolve(A, 'ip');
    await s.documents.resolve(B, 'ip');
    assert.ok(s.documents.cached(A), 'A used again: B is now the oldest');
    await s.documents.resolve(C, 'ip');
    assert.ok(s.documents.cached(A));
    assert.equal(s.documents.cached(B), undefined);
    assert.ok(s.documents.cached(C));
  });

  it('the report names the IP of the request that caused the fetch', async () => {
    const s = setup((url) => valid(url));
    await s.documents.resolve(A, '203.0.113.5');
    assert.equal(s.reports[0]!.ip, '203.0.113.5');
    assert.equal(s.reports[0]!.url, A);
  });
});
