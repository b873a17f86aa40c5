/**
 * The error page for what cannot be sent back to a client (docs/decisions.md "Authorization endpoint" "Page or redirect": an unknown client or a
 * redirect URI that is not the client's). It never links anywhere the request named.
 */
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';

export interface ErrorPage {
  readonly title: string;
  /** What went wrong, in plain words. */
  readonly message: string;
  /** The OAuth error code, for developers. */
  readonly code?: string | undefined;
  /** The request's id (x-request-id, `reqId` in the logs), for the person to quote. */
  readonly requestId: string;
}

export function errorPage(page: ErrorPage): SafeHtml {
  const body = html`<h1>${page.title}</h1>
<p>${page.message}</p>
${page.code && html`<p class="muted">Error code: <code>${page.code}</code></p>`}
<p class="muted">You can close this window. If you came here from an app, tell its developer what this page says.</p>
<p class="reference">Reference: <code>${page.requestId}</code> — quote it if you ask for help: it finds this request in the service’s logs.</p>`;
  return layout({ title: page.title, body });
}
