/**
 * The sign-in page (docs/clients.md "Sign-in, consent and Connected apps"): labelled **Email** and **Password**, a **Sign in** button. Within an
 * authorization it names the app and, as the consent page does, whether anyone vouched for it.
 */
import type { ClientKind } from '../storage/schema.js';
import { clientKindBadge, csrfField, hiddenFields } from './fragments.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';

export interface SignInPage {
  /** Where the form posts (same origin). */
  readonly action: string;
  readonly csrfToken: string;
  /** Fields carried through the sign-in unchanged (the authorization request, or return_to). */
  readonly hidden: Readonly<Record<string, string>>;
  /** The app the person is signing in for, when there is one. */
  readonly clientName?: string | undefined;
  /** Its kind: a self-registered app shows "not verified". */
  readonly clientKind?: ClientKind | undefined;
  readonly email?: string | undefined;
  readonly error?: string | undefined;
  /** A status line, e.g. after signing out. */
  readonly notice?: string | undefined;
}

export function signInPage(page: SignInPage): SafeHtml {
  const body = html`<h1>Sign in</h1>
${page.clientName ? html`<p>to continue to <strong>${page.clientName}</strong>${page.clientKind && html` ${clientKindBadge(page.clientKind)}`}</p>` : html`<p class="muted">Sign in to your school account.</p>`}
${page.notice && html`<p class="muted" role="status">${page.notice}</p>`}
${page.error && html`<p class="alert" id="signin-error" role="alert">${page.error}</p>`}
<form method="post" action="${page.action}">
${csrfField(page.csrfToken)}
${hiddenFields(page.hidden)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${page.email ?? ''}">
<label for="password">Password</label>
${
  // After a failed attempt the password field takes the focus (no script: autofocus) and names
  // the error, so a screen reader announces it there and the person types again at once.
  page.error
    ? html`<input id="password" name="password" type="password" autocomplete="current-password" required autofocus aria-describedby="signin-error" aria-invalid="true">`
    : html`<input id="password" name="password" type="password" autocomplete="current-password" required>`
}
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`;
  return layout({ title: 'Sign in', body });
}
