/**
 * What helps a person recognise an app (docs/decisions.md "Apps the person recognises"): when it
 * registered, when it was last used, and the pages it names about itself — its website, privacy
 * policy and terms (`client_uri`, `policy_uri`, `tos_uri`, RFC 7591 §2). Only for an app the
 * operators vouch for (a registered integration, or a metadata document they trust) are those
 * links; for any other app they are plain text hosts, never a link or an image the unverified app
 * picked. `logo_uri` is never shown: an image chosen by the app would be fetched by the person's
 * browser on the consent page (telling that host who signs in, and when), proves nothing (a logo
 * is copied in a second), and would need CSP `img-src` beyond 'self'.
 */
import { html, type SafeHtml } from './html.js';

export interface AppFacts {
  /** When the app registered (or was first seen, for a metadata document), epoch seconds. */
  readonly registeredAt: number;
  /** When a token was last issued to it (recorded at most once a day), or null. */
  readonly lastUsedAt: number | null;
  /** The operators vouch for it: its pages are links. */
  readonly vouched: boolean;
  readonly pages: readonly { readonly label: string; readonly uri: string; readonly host: string }[];
}

const PAGES = [
  ['client_uri', 'Website'],
  ['policy_uri', 'Privacy policy'],
  ['tos_uri', 'Terms of service'],
] as const;

/** The facts of a client row: its registered metadata JSON holds the page URIs. */
export function appFacts(
  client: { readonly created_at: number; readonly last_used_at: number | null; readonly metadata: string },
  vouched: boolean,
): AppFacts {
  let metadata: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(client.metadata);
    if (typeof parsed === 'object' && parsed !== null) metadata = parsed as Record<string, unknown>;
  } catch {
    // A row written before metadata was kept: no pages to show.
  }
  const pages = PAGES.flatMap(([field, label]) => {
    const uri = metadata[field];
    if (typeof uri !== 'string') return [];
    try {
      const url = new URL(uri);
      // Registration admits only http(s) URLs; anything else is not shown, even as text.
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return [];
      return [{ label, uri: url.href, host: url.host }];
    } catch {
      return [];
    }
  });
  return { registeredAt: client.created_at, lastUsedAt: client.last_used_at, vouched, pages };
}

const day = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);

/** "Registered 2026-11-28 · last used 2026-11-28", then its pages: links or plain hosts. */
export function appFactsLine(facts: AppFacts): SafeHtml {
  const used = facts.lastUsedAt === null ? 'not used yet' : `last used ${day(facts.lastUsedAt)}`;
  const pages = facts.pages.map((p, i) => {
    const sep = i === 0 ? '' : ' · ';
    return facts.vouched
      ? html`${sep}<a href="${p.uri}" rel="noopener noreferrer">${p.label}</a> (${p.host})`
      : html`${sep}${p.label}: ${p.host}`;
  });
  const note = facts.vouched ? '' : html` <span class="muted">(named by the app, not checked)</span>`;
  return html`<p class="muted app-facts">Registered ${day(facts.registeredAt)} · ${used}</p>
${facts.pages.length > 0 && html`<p class="muted app-facts">${pages}${note}</p>`}`;
}
