/**
 * The metadata documents this process knows (draft §5, §5.2): a bounded cache of valid documents,
 * each kept for the lifetime its response's cache headers ask for within the operator's bounds, and
 * at most one fetch in flight per URL — concurrent requests for one URL share it. Failures and
 * invalid documents are never cached (draft §5.2 MUST). Every real fetch is reported once to
 * `observe` (audit trail and /metrics).
 */
import { type CacheBounds, cacheLifetime } from './cache-lifetime.js';
import { type MetadataDocument, validateDocument } from './document.js';
import { type Fetched, type FetchFailure, type FetchSettings, fetchDocument } from './fetch.js';

export type ResolveFailure = FetchFailure | 'invalid_document';

export type Resolution =
  | { readonly ok: true; readonly document: MetadataDocument }
  | { readonly ok: false; readonly failure: ResolveFailure; readonly reason: string };

/** One fetch that happened, for the audit trail and /metrics. */
export interface FetchReport {
  readonly url: string;
  readonly outcome: 'ok' | ResolveFailure;
  readonly reason: string | undefined;
  /** How long the document is cached (seconds), when valid. */
  readonly cacheSeconds: number | undefined;
  readonly ms: number;
  /** The client IP of the request that caused the fetch. */
  readonly ip: string;
}

export interface DocumentsOptions {
  readonly fetch: FetchSettings;
  readonly cache: CacheBounds & { readonly entries: number };
  readonly now: () => number;
  readonly observe: (report: FetchReport) => Promise<void>;
  /** Counts a fetch against the client IP: seconds to wait when over the limit, else undefined. */
  readonly limit?: (ip: string) => number | undefined;
  /** The fetcher (tests of the cache give their own); fetchDocument by default. */
  readonly fetcher?: (url: string, settings: FetchSettings) => Promise<Fetched>;
}

interface Entry {
  readonly document: MetadataDocument;
  readonly expiresAt: number;
}

export class MetadataDocuments {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Resolution>>();

  constructor(private readonly options: DocumentsOptions) {}

  /** The cached, unexpired document for `url`; refreshes its place in the LRU order. */
  cached(url: string): MetadataDocument | undefined {
    const entry = this.cache.get(url);
    if (!entry) return undefined;
    this.cache.delete(url);
    if (entry.expiresAt <= this.options.now()) return undefined;
    this.cache.set(url, entry);
    return entry.document;
  }

  /**
   * Whether resolving `url` now would be refused by the fetch limit: seconds to wait, or undefined.
   * Only a new fetch counts — a cached document or a fetch under way (which this request would
   * join) costs nothing.
   */
  limited(url: string, ip: string): number | undefined {
    if (this.cached(url) || this.inFlight.has(url)) return undefined;
    return this.options.limit?.(ip);
  }

  /** The document at `url` (a valid client_id URL): from the cache, a fetch under way, or a new fetch. */
  resolve(url: string, ip: string): Promise<Resolution> {
    const document = this.cached(url);
    if (document) return Promise.resolve({ ok: true, document });
    const pending = this.inFlight.get(url);
    if (pending) return pending;
    const fetch = this.fetchAndKeep(url, ip).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, fetch);
    return fetch;
  }

  private async fetchAndKeep(url: string, ip: string): Promise<Resolution> {
    const started = Date.now();
    const fetched = await (this.options.fetcher ?? fetchDocument)(url, this.options.fetch);
    const result: Resolution = fetched.ok
      ? this.judge(fetched.body, url)
      : { ok: false, failure: fetched.failure, reason: `could not be fetched: ${fetched.reason}` };
    let cacheSeconds: number | undefined;
    if (result.ok && fetched.ok) {
      const now = this.options.now();
      cacheSeconds = cacheLifetime(fetched.headers, this.options.cache, now);
      this.keep(url, { document: result.document, expiresAt: now + cacheSeconds });
    }
    await this.options.observe({
      url,
      outcome: result.ok ? 'ok' : result.failure,
      reason: result.ok ? undefined : result.reason,
      cacheSeconds,
      ms: Date.now() - started,
      ip,
    });
    return result;
  }

  private judge(body: Buffer, url: string): Resolution {
    const judged = validateDocument(body, url);
    if ('problem' in judged) {
      return {
        ok: false,
        failure: 'invalid_document',
        reason: `is not a valid metadata document: it ${judged.problem}`,
      };
    }
    return { ok: true, document: judged.document };
  }

  private keep(url: string, entry: Entry): void {
    if (entry.expiresAt <= this.options.now()) return;
    this.cache.delete(url);
    this.cache.set(url, entry);
    while (this.cache.size > this.options.cache.entries) {
      this.cache.delete(this.cache.keys().next().value!);
    }
  }
}
