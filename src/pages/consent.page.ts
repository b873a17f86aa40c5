/**
 * The consent page (docs/clients.md "Sign-in, consent and Connected apps"): who is asking (and whether anyone vouched for it), where the
 * answer goes, what it may do — a ticked box per scope in plain words grouped by area, those
 * allowed before listed apart — in which school, and **Allow** / **Read only** / **Deny** (kept in
 * view while the list scrolls); and a way out for someone who is not the person signed in. No
 * script: the boxes and buttons are a plain form.
 */
import { PATHS } from '../paths.js';
import type { ClientKind } from '../storage/schema.js';
import { type AppFacts, appFactsLine } from './app-facts.js';
import { clientKindBadge, csrfField, hiddenFields, scopeList, utcTime } from './fragments.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import type { ScopeGroup } from './scope-groups.js';

export interface ConsentPage {
  readonly action: string;
  readonly csrfToken: string;
  readonly hidden: Readonly<Record<string, string>>;
  readonly clientName: string;
  readonly clientKind: ClientKind;
  /** The client has no secret (token_endpoint_auth_method "none"). */
  readonly publicClient: boolean;
  /** When the person last allowed it every requested scope (epoch seconds), if they did. */
  readonly allowedBefore?: number | undefined;
  /** The redirect URI the answer will be sent to. */
  readonly redirectUri: string;
  /** The scopes asked about: one tick box each, ticked. */
  readonly scopes: readonly ScopeGroup[];
  /** The requested scopes the person allowed this app before: listed, not asked about again. */
  readonly alreadyAllowed: readonly ScopeGroup[];
  /** The tick boxes' field name, the scope that has no box to untick, the decision values. */
  readonly grantField: string;
  readonly alwaysGranted: string;
  readonly decisions: { readonly allow: string; readonly readOnly: string };
  /** The scopes asked about mix read and write: offer "Read only". */
  readonly readOnlyOffered: boolean;
  /** The form came back with nothing ticked. */
  readonly nothingChosen: boolean;
  readonly accountEmail: string;
  /** A client identified by its metadata document: its client_id URL and that URL's host (docs/decisions.md "Client ID Metadata Documents"). */
  readonly identity?:
    | { readonly clientId: string; readonly host: string; readonly trusted: boolean }
    | undefined;
  /** When it registered and was last used, and its own pages (links only when vouched for). */
  readonly facts: AppFacts;
  /** Whether a requested scope reaches into school data (not only the person's own account). */
  readonly schoolBound: boolean;
  /** The schools the person belongs to: the token reaches the data of these. */
  readonly schools: readonly { readonly slug: string; readonly name: string; readonly role: string }[];
  /** The form that signs this person out and asks for another sign-in, same request. */
  readonly switchAccount: { readonly csrfToken: string; readonly hidden: Readonly<Record<string, string>> };
}

function destination(redirectUri: string): SafeHtml {
  const url = new URL(redirectUri);
  return url.protocol === 'http:'
    ? html`<p>After you choose, you will be sent to <code>${url.host}</code> — an app running on this computer.</p>`
    : html`<p>After you choose, you will be sent to the website <code>${url.host}</code>.</p>`;
}

/** Whose data a school scope reaches: the schools where the person is a member, by name. */
function schoolsReached(page: ConsentPage): SafeHtml {
  const last = page.schools.length - 1;
  if (last < 0) {
    return html`<p>You are not a member of any school: of school data the app will see only what is public.</p>`;
  }
  const list = page.schools.map(
    (s, i) =>
      html`${i === 0 ? '' : i === last ? ' and ' : ', '}<strong>${s.name}</strong> (<code>${s.slug}</code>, ${s.role})`,
  );
  return html`<p>With school data it acts as you in ${list}.</p>`;
}

// RFC 8252 §8.6: the page is shown again for a public client; it says so, and preselects nothing.
function allowedBeforeNote(page: ConsentPage): SafeHtml | undefined {
  if (page.allowedBefore === undefined) return undefined;
  const why = page.publicClient
    ? html` Any program on this computer can ask under this app's name, so you are asked each time: allow only if you just started it.`
    : '';
  return html`<p class="notice" role="status">You allowed this app before (${utcTime(page.allowedBefore)}).${why}</p>`;
}

function provenance(page: ConsentPage): SafeHtml {
  const identity = page.identity;
  if (identity) {
    // Draft-ietf-oauth-client-id-metadata-document §8.5: the client_id's host, shown prominently.
    return html`<p class="domain">Identified by ${identity.host}</p>
<p>${clientKindBadge(page.clientKind, identity.trusted)}</p>
${appFactsLine(page.facts)}
${allowedBeforeNote(page)}
${
  identity.trusted
    ? html`<p class="muted">The operators of this service registered apps published at ${identity.host} as an integration. This one describes itself at <code>${identity.clientId}</code>.</p>`
    : html`<p class="muted">This app describes itself at <code>${identity.clientId}</code>. Its name was chosen by whoever controls ${identity.host} and has not been checked. Allow it only if you started it yourself and expect it to come from ${identity.host}.</p>`
}`;
  }
  return html`<p>${clientKindBadge(page.clientKind)}</p>
${appFactsLine(page.facts)}
${allowedBeforeNote(page)}
${
  page.clientKind === 'dynamic'
    ? html`<p class="muted">This app registered itself. Its name was chosen by whoever made it and has not been checked. Allow it only if you started it yourself.</p>`
    : html`<p class="muted">This integration was registered with the school platform by its operators.</p>`
}`;
}

/** The id of a scope's tick box: scope names hold ':', which ids may but selectors dislike. */
const boxId = (name: string) => `scope-${name.replace(/[^a-z0-9_]/g, '-')}`;

function scopeBox(page: ConsentPage, scope: { name: string; description: string }): SafeHtml {
  const id = boxId(scope.name);
  // The box that cannot be unticked submits nothing (disabled); the server grants it anyway.
  if (scope.name === page.alwaysGranted) {
    return html`<div class="choice"><input type="checkbox" id="${id}" checked disabled aria-describedby="${id}-note"><label for="${id}">${scope.description}</label><span><code>${scope.name}</code> <span class="muted" id="${id}-note">(always included)</span></span></div>
`;
  }
  return html`<div class="choice"><input type="checkbox" id="${id}" name="${page.grantField}" value="${scope.name}" checked><label for="${id}">${scope.description}</label><span><code>${scope.name}</code></span></div>
`;
}

function scopeChoices(page: ConsentPage): SafeHtml {
  if (page.scopes.length === 0) return html``;
  const intro =
    page.alreadyAllowed.length > 0
      ? 'It now also asks to do the following. Untick anything you do not want to allow:'
      : 'It asks to do the following. Untick anything you do not want to allow:';
  return html`<p>${intro}</p>
${page.scopes.map(
  (group) => html`<fieldset class="scopes"><legend>${group.title}</legend>
${group.items.map((s) => scopeBox(page, s))}</fieldset>
`,
)}`;
}

function alreadyAllowedList(page: ConsentPage): SafeHtml | undefined {
  if (page.alreadyAllowed.length === 0) return undefined;
  return html`<h2>Already allowed</h2>
<p class="muted">You allowed this app these before; they stay allowed. Withdraw them under Connected apps.</p>
${scopeList(page.alreadyAllowed)}`;
}

function decisionButtons(page: ConsentPage): SafeHtml {
  const readOnly = page.readOnlyOffered
    ? html`<button type="submit" aria-describedby="read-only-help" name="decision" value="${page.decisions.readOnly}">Read only</button>`
    : '';
  return html`${page.readOnlyOffered && html`<p class="muted" id="read-only-help">Read only allows what you ticked, except anything that changes data.</p>`}
<div class="actions decide">
<button class="primary" type="submit" name="decision" value="${page.decisions.allow}">Allow</button>
${readOnly}
<button type="submit" name="decision" value="deny">Deny</button>
</div>`;
}

export function consentPage(page: ConsentPage): SafeHtml {
  const body = html`<h1>Allow ${page.clientName} to use your account?</h1>
${provenance(page)}
${destination(page.redirectUri)}
${page.nothingChosen && html`<p class="alert" role="alert">Nothing was ticked, so there is nothing to allow. Tick what the app may do, or choose Deny.</p>`}
<form method="post" action="${page.action}">
${csrfField(page.csrfToken)}
${hiddenFields(page.hidden)}
${alreadyAllowedList(page)}
${scopeChoices(page)}
${page.schoolBound && schoolsReached(page)}
${decisionButtons(page)}
</form>
<p class="muted">You can withdraw this at any time under <a href="${PATHS.connectedApps}">Connected apps</a>.</p>
<form method="post" action="${page.action}">
${csrfField(page.switchAccount.csrfToken)}
${hiddenFields(page.switchAccount.hidden)}
<p class="muted">Signed in as ${page.accountEmail}. <button class="link" type="submit">Not you? Sign in as someone else</button></p>
</form>`;
  return layout({ title: 'Allow access?', body, signedInAs: page.accountEmail });
}
