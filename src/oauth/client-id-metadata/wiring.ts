/**
 * The process's metadata documents, built from configuration once per app: fetch settings, cache
 * bounds, and the report of every fetch to the audit trail (`client_metadata.fetched` /
 * `client_metadata.refused`) and to /metrics (`schoolauth_client_metadata_fetches_total`).
 */
import { rootCertificates } from 'node:tls';
import { recordAudit } from '../../audit/audit.js';
import { isLoopbackHostname } from '../../config.js';
import type { AppContext } from '../../context.js';
import { countClientMetadataFetch } from '../../ops/metrics.js';
import type { EndpointLimits } from '../../rate-limit/endpoint-limits.js';
import { clientIdHost } from './client-id-url.js';
import { type FetchReport, MetadataDocuments } from './documents.js';

async function report(ctx: AppContext, fetch: FetchReport): Promise<void> {
  countClientMetadataFetch(fetch.outcome);
  await recordAudit(
    ctx.store,
    {
      kind: fetch.outcome === 'ok' ? 'client_metadata.fetched' : 'client_metadata.refused',
      clientId: fetch.url,
      ip: fetch.ip,
      detail: {
        host: clientIdHost(fetch.url),
        outcome: fetch.outcome,
        ms: fetch.ms,
        ...(fetch.reason === undefined ? {} : { reason: fetch.reason.slice(0, 500) }),
        ...(fetch.cacheSeconds === undefined ? {} : { cache_seconds: fetch.cacheSeconds }),
      },
    },
    ctx.now(),
  );
}

/** The documents of one app; `limits` counts the fetches per client IP (RATE_LIMIT_CLIENT_METADATA). */
export function metadataDocumentsFor(
  ctx: AppContext,
  limits: Pick<EndpointLimits, 'clientMetadata'>,
): MetadataDocuments {
  const settings = ctx.config.clientMetadata;
  return new MetadataDocuments({
    limit: (ip) => limits.clientMetadata(ip),
    fetch: {
      connectTimeoutMs: settings.connectTimeoutMs,
      readTimeoutMs: settings.readTimeoutMs,
      // Draft §8.6: loopback only for a development or test deployment, i.e. a loopback issuer.
      allowLoopback: isLoopbackHostname(new URL(ctx.config.issuer).hostname),
      // An operator's (or a test's) CA is trusted besides Node's bundled roots, not instead.
      ca: settings.caCertificates && [...rootCertificates, ...settings.caCertificates],
    },
    cache: { min: settings.cacheMin, max: settings.cacheMax, entries: settings.cacheEntries },
    now: ctx.now,
    observe: (fetch) => report(ctx, fetch),
  });
}
