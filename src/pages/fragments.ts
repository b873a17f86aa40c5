/** Small pieces several pages share. */
import { CSRF_FIELD } from '../sessions/csrf.js';
import type { ClientKind } from '../storage/schema.js';
import { html, type SafeHtml } from './html.js';
import type { ScopeGroup } from './scope-groups.js';

export function hiddenFields(fields: Readonly<Record<string, string>>): SafeHtml {
  return html`${Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`,
  )}`;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export function scopeList(groups: readonly ScopeGroup[]): SafeHtml {
  return html`${groups.map(
    (group) => html`<h2>${group.title}</h2>
<ul class="scopes">${group.items.map((s) => html`<li>${s.description} <code>${s.name}</code></li>`)}</ul>
`,
  )}`;
}

/**
 * Whether anyone vouched for the client: an operator's integration (or a metadata document the
 * operator trusts, docs/decisions.md "Authorization endpoint") or an app that describes itself.
 */
export function clientKindBadge(kind: ClientKind, trusted = false): SafeHtml {
  if (kind === 'integration' || trusted) return html`<span class="badge ok">Registered integration</span>`;
  return kind === 'dynamic'
    ? html`<span class="badge warn">Self-registered · not verified</span>`
    : html`<span class="badge warn">Metadata document · not verified</span>`;
}

/** An instant for people: "2031-05-06 07:08 UTC". */
export function utcTime(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
