/**
 * The document shell every page shares: no script, one same-origin stylesheet, a viewport for
 * phones. The service name sits in the header so a person knows whose page they are on.
 */

import { STYLESHEET_PATH } from './assets.js';
import { html, type SafeHtml } from './html.js';

export interface LayoutInput {
  readonly title: string;
  readonly body: SafeHtml;
  /** Shown at the top right when someone is signed in. */
  readonly signedInAs?: string | undefined;
}

export function layout(input: LayoutInput): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${input.title} · School platform</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<header class="top"><span class="brand">School platform</span>${
    input.signedInAs ? html`<span class="who">${input.signedInAs}</span>` : ''
  }</header>
<main class="card">
${input.body}
</main>
</body>
</html>
`;
}
