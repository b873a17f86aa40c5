/**
 * Connected apps (SPEC §6): GET lists the person's live grants per client; POST …/revoke ends
 * every grant of one client for this person with all tokens under them, and forgets the consent
 * so the app must ask again.
 */
import type { FastifyInstance } from 'fastify';
import { recordAudit } from '../audit/audit.js';
import { isLoopbackHostname } from '../config.js';
import type { AppContext } from '../context.js';
import { PATHS } from '../oauth/discovery.js';
import { SCOPE_NAMES } from '../oauth/scope-catalogue.js';
import { CSRF_FIELD, checkCsrfToken, csrfToken } from '../sessions/csrf.js';
import { loadSession } from '../sessions/sessions.js';
import { type LiveGrantRow, liveGrantsOf } from '../storage/connected-apps.repository.js';
import { deleteConsent } from '../storage/consents.repository.js';
import { liveGrantIds, revokeGrants } from '../storage/grants.repository.js';
import { type ConnectedApp, connectedAppsPage, REVOKE_PATH } from './connected-apps.page.js';
import { field, formBody, pageRoute } from './form.js';
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

/** One entry per client: scopes united, first grant and latest use across its grants. */
export function toConnectedApps(rows: readonly LiveGrantRow[]): ConnectedApp[] {
  const byClient = new Map<string, { row: LiveGrantRow; scopes: Set<string>; first: number; last: number }>();
  for (const row of rows) {
    const entry = byClient.get(row.client_id) ?? {
      row,
      scopes: new Set<string>(),
      first: row.created_at,
      last: row.last_used_at,
    };
    for (const s of row.scopes.split(' ')) if (s) entry.scopes.add(s);
    entry.first = Math.min(entry.first, row.created_at);
    entry.last = Math.max(entry.last, row.last_used_at);
    byClient.set(row.client_id, entry);
  }
  const apps = [...byClient.values()].map(({ row, scopes, first, last }) => ({
    clientId: row.client_id,
    name: row.client_name,
    kind: row.client_kind,
    redirectKind: redirectKind(row.redirect_uris),
    scopes: groupScopes(SCOPE_NAMES.filter((s) => scopes.has(s))),
    firstGranted: first,
    lastUsed: last,
  }));
  return apps.sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }));
}

const APPS_GET = pageRoute({
  summary: 'Connected apps: every app the person has let in, with a Revoke button each',
  page: 'The list of connected apps',
  redirect: 'Not signed in: to the sign-in page, returning here',
});

const REVOKE_POST = pageRoute({
  summary: 'A Revoke button posts here: ends the app’s grants and every token under them',
  redirect: 'Back to Connected apps, saying access was revoked',
  form: { client_id: 'The app to revoke', csrf_token: 'The form’s CSRF token' },
});

export async function connectedAppsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(PATHS.connectedApps, APPS_GET, async (request, reply) => {
    const session = await loadSession(ctx, request);
    if (!session) return sendRedirect(reply, 303, signInUrl(PATHS.connectedApps));
    const apps = toConnectedApps(await liveGrantsOf(ctx.db, session.account.id));
    const query = request.query as Record<string, unknown>;
    const page = connectedAppsPage({
      accountEmail: session.account.email,
      apps,
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
    const clientId = field(body, 'client_id');
    if (clientId) {
      const accountId = session.account.id;
      const grantIds = await liveGrantIds(ctx.db, accountId, clientId);
      const now = ctx.now();
      await revokeGrants(ctx.db, grantIds, now);
      await deleteConsent(ctx.db, accountId, clientId);
      await recordAudit(
        ctx.db,
        {
          kind: 'grant.revoked',
          accountId,
          clientId,
          ip: request.ip,
          detail: { grants: grantIds.length, by: 'person' },
        },
        now,
      );
    }
    return sendRedirect(reply, 303, `${PATHS.connectedApps}?done=revoked`);
  });
}
