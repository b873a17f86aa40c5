/**
 * The authorization endpoint's first step for a client_id that is a URL (docs/decisions.md "Client ID Metadata Documents"): the client and
 * redirect URI come from the metadata document at that URL instead of a registration row. Every
 * way this can fail is an error page naming the reason, never a redirect (RFC 6749 §4.1.2.1:
 * until the redirect URI is verified, nobody may be sent to it).
 */

import type { AppContext } from '../../context.js';
import type { Client } from '../../storage/schema.js';
import type { RequestParams } from '../authorize/params.js';
import { problem, type Target, targetParamsProblem } from '../authorize/validate.js';
import { DEVICE_CODE_GRANT } from '../client-metadata.js';
import { clientIdHost, clientIdUrlProblem } from './client-id-url.js';
import type { MetadataDocument } from './document.js';
import type { MetadataDocuments } from './documents.js';
import { judgeRedirect } from './redirect-policy.js';
import { judgeClientId } from './rules.js';

/** The `clients` row that stands for the document (kept as it was where the document is silent). */
function clientRow(document: MetadataDocument, previous: Client | undefined, now: number): Client {
  return {
    id: document.clientId,
    kind: 'metadata_document',
    name: document.clientName,
    application_type: document.applicationType ?? 'native',
    redirect_uris: JSON.stringify(document.redirectUris),
    token_endpoint_auth_method: 'none',
    secret_hash: null,
    grant_types: JSON.stringify([
      'authorization_code',
      'refresh_token',
      ...(document.deviceGrant ? [DEVICE_CODE_GRANT] : []),
    ]),
    response_types: JSON.stringify(['code']),
    metadata: JSON.stringify({
      ...(document.clientUri ? { client_uri: document.clientUri } : {}),
      ...(document.dpopBoundAccessTokens ? { dpop_bound_access_tokens: true } : {}),
    }),
    id_token_signed_response_alg: document.idTokenAlg,
    disabled: previous?.disabled ?? 0,
    created_at: previous?.created_at ?? now,
    last_used_at: previous?.last_used_at ?? null,
  };
}

const unchanged = (a: Client | undefined, b: Client): boolean =>
  a !== undefined &&
  a.kind === b.kind &&
  a.name === b.name &&
  a.application_type === b.application_type &&
  a.redirect_uris === b.redirect_uris &&
  a.metadata === b.metadata &&
  a.id_token_signed_response_alg === b.id_token_signed_response_alg;

/** The app as the document describes it, or the page that says why it cannot be used. */
export async function metadataTarget(
  ctx: AppContext,
  documents: MetadataDocuments,
  params: RequestParams,
  ip: string,
): Promise<Target> {
  const early = targetParamsProblem(params);
  if (early) return early;
  const clientId = params.values.client_id!;
  if (!ctx.config.clientMetadata.enabled) {
    return problem(
      'Unknown app',
      'The app that sent you here identifies itself with a URL, and this service does not fetch client metadata documents. The app must register itself (dynamic registration) instead.',
      'invalid_client',
    );
  }
  const urlProblem = clientIdUrlProblem(clientId);
  if (urlProblem) {
    return problem(
      'Invalid app address',
      `The app that sent you here identifies itself with the URL ${clientId.slice(0, 300)}, which cannot name a client metadata document: it ${urlProblem}.`,
      'invalid_client',
    );
  }
  const host = clientIdHost(clientId);
  const verdict = judgeClientId(await ctx.store.clients.metadataRules(), clientId, host);
  if (verdict === 'blocked') {
    return problem(
      'App blocked',
      `The operators of this service have blocked the app identified by ${clientId} (${host}).`,
      'invalid_client',
    );
  }
  const previous = await ctx.store.clients.find(clientId);
  if (previous?.disabled) {
    return problem(
      'App disabled',
      'The app that sent you here has been disabled by the operators of this service.',
      'invalid_client',
    );
  }
  return fromDocument(ctx, documents, params, {
    clientId,
    host,
    trusted: verdict === 'trusted',
    previous,
    ip,
  });
}

interface Known {
  readonly clientId: string;
  readonly host: string;
  readonly trusted: boolean;
  readonly previous: Client | undefined;
  readonly ip: string;
}

async function fromDocument(
  ctx: AppContext,
  documents: MetadataDocuments,
  params: RequestParams,
  known: Known,
): Promise<Target> {
  const { clientId, host, trusted } = known;
  const retryAfter = documents.limited(clientId, known.ip);
  if (retryAfter !== undefined) {
    return {
      problem: {
        title: 'Too many apps at once',
        message: `Too many apps were looked up from your address in the last minute. Try again in ${retryAfter} seconds.`,
        code: 'rate_limited',
        status: 429,
        retryAfter,
      },
    };
  }
  const resolution = await documents.resolve(clientId, known.ip);
  if (!resolution.ok) {
    return problem(
      'App could not be identified',
      `The app that sent you here identifies itself with the metadata document at ${clientId}, and that document ${resolution.reason}. Nothing was changed; tell the app's developer.`,
      'invalid_client',
    );
  }
  const requested = params.values.redirect_uri!;
  const decision = judgeRedirect(requested, resolution.document.redirectUris, {
    trusted,
    loopbackHosts: ctx.config.loopbackHosts,
  });
  if (!decision.ok) {
    return problem(
      'Invalid return address',
      `The return address in the request (redirect_uri) ${decision.problem}, so you were not sent back to it.`,
    );
  }
  const client = clientRow(resolution.document, known.previous, ctx.now());
  return {
    client,
    redirectUri: requested,
    metadata: { host, trusted, save: unchanged(known.previous, client) ? undefined : client },
  };
}
