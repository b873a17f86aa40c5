/**
 * Connected apps (docs/clients.md "Sign-in, consent and Connected apps"): every app the person has let in (a remembered consent or a live
 * grant), compact — name, what identifies it, registered, last used, what it reaches in one line —
 * with the full facts and scopes in a `<details>` (no script), a **Revoke** button per app, one
 * for all self-registered apps of one name, a search from many apps on, and Sign out at the top.
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
  /** When the app registered (or was first seen). */
  readonly registeredAt: number;
  readonly firstGranted: number;
  /** Latest use of any grant; null when it was never used. */
  readonly lastUsed: number | null;
  /** It holds a live grant (tokens) now, not only a remembered consent. */
  readonly hasAccess: boolean;
  /** Its live tokens are bound to a key the app holds (DPoP, RFC 9449): a copy is useless without it. */
  readonly keyBound?: boolean;
}

export interface ConnectedAppsPage {
  readonly accountEmail: string;
  readonly apps: readonly ConnectedApp[];
  readonly csrfToken: string;
  readonly signOutToken: string;
  readonly notice?: string | undefined;
  /** The search box is shown from this many apps on, or while a search is active. */
  readonly searchFrom: number;
  /** The active search (`?q=`), and how many apps there are in all. */
  readonly query: string | undefined;
  readonly total: number;
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

const day = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);

/** What tells apps of one name apart: the host of a metadata document, else the id's tail. */
function identifiedBy(app: ConnectedApp): string {
  return app.identity ? `Identified by ${app.identity.host}` : `App ID …${app.clientId.slice(-6)}`;
}

/** "Courses (see and change), Sales and payments (see)": the areas it reaches, in one line. */
function scopeSummary(app: ConnectedApp): string {
  if (app.scopes.length === 0) return 'Nothing';
  return app.scopes
    .map((g) => `${g.title} (${g.items.some((i) => i.name.endsWith(':write')) ? 'see and change' : 'see'})`)
    .join(', ');
}

function appSection(app: ConnectedApp, index: number, csrfToken: string): SafeHtml {
  const id = `app-${index}`;
  // No accessible name on the section: apps of one name would make landmarks of one name.
  return html`<section class="app">
<h2 id="${id}">${app.name} ${clientKindBadge(app.kind, app.identity?.trusted)}</h2>
<p class="muted" id="${id}-who">${identifiedBy(app)} · registered ${day(app.registeredAt)} · last used ${app.lastUsed === null ? 'never' : utcTime(app.lastUsed)}</p>
<p>${app.hasAccess ? '' : html`<span class="badge">No access now</span> `}${app.keyBound ? html`<span class="badge">Key-bound</span> ` : ''}${scopeSummary(app)}</p>
<details><summary>Details<span class="visually-hidden"> of ${app.name}, ${identifiedBy(app)}</span></summary>
<dl class="facts">
<dt>Redirects to</dt><dd>${redirects(app)}</dd>
<dt>Access</dt><dd>${access(app)}</dd>
${app.keyBound ? html`<dt>Tokens</dt><dd>Key-bound: they work only with a key kept by the app (DPoP), so a copied token is useless elsewhere</dd>` : ''}
<dt>First allowed</dt><dd>${utcTime(app.firstGranted)}</dd>
<dt>Last used</dt><dd>${app.lastUsed === null ? 'never' : utcTime(app.lastUsed)}</dd>
<dt>Registered</dt><dd>${utcTime(app.registeredAt)}</dd>
<dt>App ID</dt><dd><code>${app.clientId}</code></dd>
</dl>
${scopeList(app.scopes)}
</details>
<form method="post" action="${REVOKE_PATH}">
${csrfField(csrfToken)}
<input type="hidden" name="client_id" value="${app.clientId}">
<div class="actions"><button class="danger" type="submit" aria-describedby="${id} ${id}-who">Revoke</button></div>
</form>
</section>`;
}

/**
 * Self-registered apps of one name: a CLI that registers again on every run leaves many. One
 * button revokes them all (each client_id posted; the server revokes only this person's).
 */
function revokeAllOfName(apps: readonly ConnectedApp[], csrfToken: string): SafeHtml[] {
  const byName = new Map<string, ConnectedApp[]>();
  for (const app of apps) {
    if (app.kind !== 'dynamic') continue;
    byName.set(app.name, [...(byName.get(app.name) ?? []), app]);
  }
  return [...byName.entries()]
    .filter(([, group]) => group.length > 1)
    .map(
      ([name, group]) => html`<div class="revoke-all"><form method="post" action="${REVOKE_PATH}">
${csrfField(csrfToken)}
${group.map(
  (app) => html`<input type="hidden" name="client_id" value="${app.clientId}">
`,
)}
<p>${group.length} self-registered apps are named “${name}” — usually one program that registered again each time it ran. <button class="danger" type="submit">Revoke all ${group.length} named “${name}”</button></p>
</form></div>`,
    );
}

function search(page: ConnectedAppsPage): SafeHtml | undefined {
  if (page.total < page.searchFrom && page.query === undefined) return undefined;
  return html`<form method="get" action="${PATHS.connectedApps}" role="search" class="find">
<label for="find-app">Find an app by name, host or ID</label>
<div class="actions"><input type="search" id="find-app" name="q" value="${page.query ?? ''}"><button type="submit">Find</button></div>
</form>
${page.query !== undefined && html`<p role="status">${page.apps.length} of ${page.total} apps match “${page.query}”. <a href="${PATHS.connectedApps}">Show all</a></p>`}`;
}

export function connectedAppsPage(page: ConnectedAppsPage): SafeHtml {
  const body = html`<div class="heading-row"><h1>Connected apps</h1>
<form method="post" action="${SIGNOUT_PATH}">
${csrfField(page.signOutToken)}
<button type="submit">Sign out</button>
</form></div>
${page.notice && html`<p class="muted" role="status">${page.notice}</p>`}
${
  page.total === 0
    ? html`<p>No apps can use your account.</p>`
    : html`<p class="muted">These apps can use your account, or were allowed to and may come back. Revoke ends an app's access at once — every token it holds stops working — and forgets that you allowed it.</p>
${search(page)}
${revokeAllOfName(page.apps, page.csrfToken)}
${page.apps.map((app, i) => appSection(app, i, page.csrfToken))}`
}`;
  return layout({ title: 'Connected apps', body, signedInAs: page.accountEmail });
}
