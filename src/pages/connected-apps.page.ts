/**
 * Connected apps (docs/decisions.md "Authorization endpoint"): every app the person has let in (a remembered consent or a live
 * grant), what it may do, since when and when it last acted — and a **Revoke** button that ends
 * all of it.
 */
import { PATHS } from '../paths.js';
import type { ClientKind } from '../storage/schema.js';
import { clientKindBadge, csrfField, scopeList, utcTime } from './fragments.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import type { ScopeGroup } from './scope-groups.js';

/** How a client identified by its metadata document is shown (docs/decisions.md "Client ID Metadata Documents"). */
export interface AppIdentity {
  /** The host of its client_id URL. */
  readonly host: string;
  readonly trusted: boolean;
  /** Hosts it may return to. */
  readonly redirectHosts: readonly string[];
}

export interface ConnectedApp {
  readonly clientId: string;
  readonly name: string;
  readonly kind: ClientKind;
  /** No client secret: remembered consent never lets it in without asking (RFC 8252 §8.6). */
  readonly publicClient: boolean;
  readonly redirectKind: 'loopback' | 'https';
  readonly identity: AppIdentity | undefined;
  readonly scopes: readonly ScopeGroup[];
  readonly firstGranted: number;
  /** Latest use of any grant; null when it was never used. */
  readonly lastUsed: number | null;
  /** It holds a live grant (tokens) now, not only a remembered consent. */
  readonly hasAccess: boolean;
}

export interface ConnectedAppsPage {
  readonly accountEmail: string;
  readonly apps: readonly ConnectedApp[];
  readonly csrfToken: string;
  readonly signOutToken: string;
  readonly notice?: string | undefined;
}

export const REVOKE_PATH = `${PATHS.connectedApps}/revoke`;
export const SIGNOUT_PATH = '/signout';

function access(app: ConnectedApp): string {
  if (app.hasAccess) return 'Has access now';
  return app.publicClient
    ? 'No access now; your earlier Allow is remembered, and the app must ask you again'
    : 'No access now; your earlier Allow is remembered and lets it back in without asking';
}

function redirects(app: ConnectedApp): string {
  const kind = app.redirectKind === 'loopback' ? 'an app on your computer (loopback)' : 'a website (https)';
  return app.identity ? app.identity.redirectHosts.join(', ') : kind;
}

function appSection(app: ConnectedApp, csrfToken: string): SafeHtml {
  return html`<section class="app">
<h2>${app.name} ${clientKindBadge(app.kind, app.identity?.trusted)}</h2>
${app.identity && html`<p class="domain">Identified by ${app.identity.host}</p>`}
<dl class="facts">
<dt>Redirects to</dt><dd>${redirects(app)}</dd>
<dt>Access</dt><dd>${access(app)}</dd>
<dt>First allowed</dt><dd>${utcTime(app.firstGranted)}</dd>
<dt>Last used</dt><dd>${app.lastUsed === null ? 'never' : utcTime(app.lastUsed)}</dd>
</dl>
${scopeList(app.scopes)}
<form method="post" action="${REVOKE_PATH}">
${csrfField(csrfToken)}
<input type="hidden" name="client_id" value="${app.clientId}">
<div class="actions"><button class="danger" type="submit">Revoke</button></div>
</form>
</section>`;
}

export function connectedAppsPage(page: ConnectedAppsPage): SafeHtml {
  const body = html`<h1>Connected apps</h1>
${page.notice && html`<p class="muted" role="status">${page.notice}</p>`}
${
  page.apps.length === 0
    ? html`<p>No apps can use your account.</p>`
    : html`<p class="muted">These apps can use your account, or were allowed to and may come back. Revoke ends an app's access at once — every token it holds stops working — and forgets that you allowed it.</p>
${page.apps.map((app) => appSection(app, page.csrfToken))}`
}
<form method="post" action="${SIGNOUT_PATH}">
${csrfField(page.signOutToken)}
<div class="actions"><button type="submit">Sign out</button></div>
</form>`;
  return layout({ title: 'Connected apps', body, signedInAs: page.accountEmail });
}
