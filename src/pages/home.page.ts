/**
 * The home page at `/`: where the URL printed at start leads. It says what this service is and
 * links to what a person (sign in, Connected apps) and a developer (the walkthrough, the API
 * description, the metadata) came for. No script, like every page.
 */
import { PATHS } from '../paths.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';

export const HOME_PATH = '/';

const link = (href: string, text: string, note: string) =>
  html`<li><a href="${href}">${text}</a> <span class="muted">${note}</span></li>`;

export function homePage(input: { issuer: string; signInPath: string }): SafeHtml {
  const body = html`<h1>School platform sign-in</h1>
<p>This service signs people in to the school platform and lets the apps they allow use its API on their behalf (OAuth 2.0 and OpenID Connect, issuer <code>${input.issuer}</code>).</p>
<h2>For people</h2>
<ul>
${link(input.signInPath, 'Sign in', 'to your school account')}
${link(PATHS.connectedApps, 'Connected apps', 'the apps you have allowed, and Revoke')}
</ul>
<h2>For developers</h2>
<ul>
${link(PATHS.authMd, 'Walkthrough (/auth.md)', 'register, authorize with PKCE, exchange, call the API, refresh, revoke')}
${link(PATHS.openapi, 'API description (/openapi.json)', 'OpenAPI 3.1, every operation and the scope it needs')}
${link(PATHS.authorizationServerMetadata, 'Authorization server metadata', 'RFC 8414')}
${link(PATHS.openidConfiguration, 'OpenID Connect discovery', 'OpenID Connect Discovery 1.0')}
${link(PATHS.protectedResourceMetadata, 'Protected resource metadata', 'RFC 9728')}
${link(PATHS.jwks, 'Signing keys (JWKS)', 'to verify ID tokens')}
</ul>`;
  return layout({ title: 'Home', body });
}
