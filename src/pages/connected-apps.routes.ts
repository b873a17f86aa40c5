/**
 * Connected apps (docs/decisions.md "Authorization endpoint"): GET lists, per client, the person's remembered consent and live
 * grants — an app whose tokens are all gone is still listed while its consent would let it back
 * in; POST …/revoke ends every grant of one client for this person with all tokens under them,
 * and forgets the consent so the app must ask again.
 */
import type { FastifyInstance } from 'fastify';
import { recordAudit } from '../audit/audit.js';
import { isLoopbackHostname } from '../config.js';
import type { AppContext } from '../context.js';
import { formBody, formQuery } from '../http/form-fields.js';
import { isConfidential } from '../oauth/authorize/consent-policy.js';
import { clientIdHost } from '../oauth/client-id-metadata/client-id-url.js';
import { judgeClientId } from '../oauth/client-id-metadata/rules.js';
import { SCOPE_NAMES } from '../oauth/scope-catalogue.js';
import { PATHS } from '../paths.js';
import { CSRF_FIELD, checkCsrfToken, csrfToken } from '../sessions/csrf.js';
import { loadSession } from '../sessions/sessions.js';
import type { ConnectionRow } from '../storage/contract/connected-apps.js';
import type { ClientMetadataRule } from '../storage/schema.js';
import {
  type AppIdentity,
  type ConnectedApp,
  connectedAppsPage,
  REVOKE_PATH,
} from './connected-apps.page.js';
import { pageRoute } from './form.js';
import { sendPage, sendRedirect } from './respond.js';
import { groupScopes } from './scope-groups.js';
import { expiredFormPage, signInUrl } from './sign-in.routes.js';

function redirectKind(redirectUris: string): 'loopback' | 'https' {
  const first = (JSON.parse(redirectUris) as string[])[0] ?? '';
  try {
    const url = new URL(first);
    return url.protocol === 'http:' && isLoopbackHostname(url.hostname) ? 'loopback' : 'https';
  } catch {
    return 'https';
  }
}

/**
 * A client identified by its metadata document (docs/decisions.md "Client ID Metadata Documents"): the host of its client_id URL, whether
 * the operator trusts it, and the hosts its document lets it return to (loopback, and https only
 * when trusted — src/oauth/client-id-metadata/redirect-policy.ts).
 */
function identityOf(row: ConnectionRow, rules: readonly ClientMetadataRule[]): AppIdentity | undefined {
  if (row.client_kind !== 'metadata_document') return undefined;
  const host = clientIdHost(row.client_id);
  const trusted = judgeClientId(rules, row.client_id, host) === 'trusted';
  const hosts = new Set<string>();
  for (const uri of JSON.parse(row.redirect_uris) as string[]) {
    try {
      const url = new URL(uri);
      const loopback = url.protocol === 'http:' && isLoopbackHostname(url.hostname);
      if (loopback || (trusted && url.protocol === 'https:')) hosts.add(loopback ? url.hostname : url.host);
    } catch {
      // An entry that is no URL can never be used; nothing to show.
    }
  }
  return { host, trusted, redirectHosts: [...hosts] };
}

interface Entry {
  readonly row: ConnectionRow;
  readonly scopes: Set<string>;
  first: number;
  last: number | null;
  live: boolean;
  keyBound: boolean;
}

/** One entry per client: scopes united, first allowed and latest use across its consent and grants. */
export function toConnectedApps(
  rows: readonly ConnectionRow[],
  rules: readonly ClientMetadataRule[] = [],
): ConnectedApp[] {
  const byClient = new Map<string, Entry>();
  for (const row of rows) {
    const entry = byClient.get(row.client_id) ?? {
      row,
      scopes: new Set<string>(),
      first: row.created_at,
      last: null,
      live: false,
      keyBound: false,
    };
    for (const s of row.scopes.split(' ')) if (s) entry.scopes.add(s);
    entry.first = Math.min(entry.first, row.created_at);
    if (row.last_used_at !== null) entry.last = Math.max(entry.last ?? 0, row.last_used_at);
    entry.live ||= row.live;
    entry.keyBound ||= row.keyBound;
    byClient.set(row.client_id, entry);
  }
  const apps = [...byClient.values()].map(({ row, scopes, first, last, live, keyBound }) => ({
    clientId: row.client_id,
    name: row.client_name,
    kind: row.client_kind,
    publicClient: !isConfidential(row),
    redirectKind: redirectKind(row.redirect_uris),
    identity: identityOf(row, rules),
    scopes: groupScopes(SCOPE_NAMES.filter((s) => scopes.has(s))),
    registeredAt: row.client_created_at,
    firstGranted: first,
    lastUsed: last,
    hasAccess: live,
    keyBound,
  }));
  // By name; apps of one name newest registration first.
  return apps.sort(
    (a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || b.registeredAt - a.registeredAt,
  );
}

/** From this many apps on, the page offers a search. */
const SEARCH_FROM = 8;
/** At most this many apps revoked by one form ("Revoke all named …"). */
const MAX_REVOKE_AT_ONCE = 200;

/** The apps a search (`?q=`) finds: by name, metadata-document host or client_id, any case. */
function matching(apps: readonly ConnectedApp[], query: string | undefined): readonly ConnectedApp[] {
  if (query === undefined) return apps;
  const q = query.toLowerCase();
  return apps.filter((a) =>
    [a.name, a.clientId, a.identity?.host ?? ''].some((v) => v.toLowerCase().includes(q)),
  );
}

/** The client_ids a Revoke form posts: one, or every app of one name. */
function postedClientIds(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))].slice(
    0,
    MAX_REVOKE_AT_ONCE,
  );
}

const APPS_GET = pageRoute({
  summary: 'Connected apps: every app the person has let in, with a Revoke button each',
  page: 'The list of connected apps',
  redirect: 'Not signed in: to the sign-in page, returning here',
});

const REVOKE_POST = pageRoute({
  summary: 'A Revoke button posts here: ends the app’s grants and every token under them',
  redirect: 'Back to Connected apps, saying access was revoked',
  form: {
    client_id: 'The app to revoke (repeated: every app of one name)',
    csrf_token: 'The form’s CSRF token',
  },
});

export async function connectedAppsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(PATHS.connectedApps, APPS_GET, async (request, reply) => {
    const session = await loadSession(ctx, request);
    if (!session) return sendRedirect(reply, 303, signInUrl(PATHS.connectedApps));
    const rows = await ctx.store.connectedApps.of(session.account.id);
    const rules = rows.some((r) => r.client_kind === 'metadata_document')
      ? await ctx.store.clients.metadataRules()
      : [];
    const apps = toConnectedApps(rows, rules);
    const query = formQuery(request);
    const q = typeof query.q === 'string' && query.q.trim() !== '' ? query.q.trim().slice(0, 200) : undefined;
    const page = connectedAppsPage({
      accountEmail: session.account.email,
      apps: matching(apps, q),
      total: apps.length,
      query: q,
      searchFrom: SEARCH_FROM,
      csrfToken: csrfToken(session.csrfSecret, 'apps'),
      signOutToken: csrfToken(session.csrfSecret, 'signout'),
      notice:
        query.done === 'revoked' ? 'Access was revoked. That app can no longer use your account.' : undefined,
    });
    return sendPage(reply, 200, page);
  });

  app.post(REVOKE_PATH, REVOKE_POST, async (request, reply) => {
    const session = await loadSession(ctx, request);
    if (!session) return sendRedirect(reply, 303, signInUrl(PATHS.connectedApps));
    const body = formBody(request);
    if (!checkCsrfToken(session.csrfSecret, 'apps', body[CSRF_FIELD])) {
      return sendPage(reply, 403, expiredFormPage(request.id));
    }
    const accountId = session.account.id;
    for (const clientId of postedClientIds(body.client_id)) {
      const now = ctx.now();
      const ended = await ctx.store.connectedApps.forget(accountId, clientId, now);
      await recordAudit(
        ctx.store,
        {
          kind: 'grant.revoked',
          accountId,
          clientId,
          ip: request.ip,
          detail: { grants: ended, by: 'person' },
        },
        now,
      );
    }
    return sendRedirect(reply, 303, `${PATHS.connectedApps}?done=revoked`);
  });
}
