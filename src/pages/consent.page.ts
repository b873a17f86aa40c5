/**
 * The consent page (SPEC §6): who is asking (and whether anyone vouched for it), where the
 * answer goes, what it may do — in plain words grouped by area — in which school, and **Allow** /
 * **Deny**; and a way out for someone who is not the person signed in.
 */
import { PATHS } from '../oauth/discovery.js';
import type { ClientKind } from '../storage/schema.js';
import { clientKindBadge, csrfField, hiddenFields, scopeList } from './fragments.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import type { ScopeGroup } from './scope-groups.js';

export interface ConsentPage {
  readonly action: string;
  readonly csrfToken: string;
  readonly hidden: Readonly<Record<string, string>>;
  readonly clientName: string;
  readonly clientKind: ClientKind;
  /** The redirect URI the answer will be sent to. */
  readonly redirectUri: string;
  readonly scopes: readonly ScopeGroup[];
  readonly accountEmail: string;
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

export function consentPage(page: ConsentPage): SafeHtml {
  const unverified = page.clientKind === 'dynamic';
  const body = html`<h1>Allow ${page.clientName} to use your account?</h1>
<p>${clientKindBadge(page.clientKind)}</p>
${
  unverified
    ? html`<p class="muted">This app registered itself. Its name was chosen by whoever made it and has not been checked. Allow it only if you started it yourself.</p>`
    : html`<p class="muted">This integration was registered with the school platform by its operators.</p>`
}
${destination(page.redirectUri)}
<p>It will be able to:</p>
${scopeList(page.scopes)}
${page.schoolBound && schoolsReached(page)}
<form method="post" action="${page.action}">
${csrfField(page.csrfToken)}
${hiddenFields(page.hidden)}
<div class="actions">
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="muted">You can withdraw this at any time under <a href="${PATHS.connectedApps}">Connected apps</a>.</p>
<form method="post" action="${page.action}">
${csrfField(page.switchAccount.csrfToken)}
${hiddenFields(page.switchAccount.hidden)}
<p class="muted">Signed in as ${page.accountEmail}. <button class="link" type="submit">Not you? Sign in as someone else</button></p>
</form>`;
  return layout({ title: 'Allow access?', body, signedInAs: page.accountEmail });
}
