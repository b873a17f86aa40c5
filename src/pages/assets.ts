/**
 * The pages' one stylesheet, served from our origin so the Content-Security-Policy can say
 * `style-src 'self'` and needs no 'unsafe-inline'. Small on purpose: readable on a phone,
 * clear focus outlines, buttons that look like what they do. WCAG 2.2 1.4.11: input and button
 * borders (`--field`, 4.6:1 on white) and the focus ring (`--focus`, 13:1, drawn 2px off the
 * control so it always meets the white or light background) reach 3:1 against what is next to
 * them; text reaches 4.5:1 (1.4.3).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { FAVICON, FAVICON_PATH } from './favicon.js';

export const STYLESHEET_PATH = '/assets/pages.css';

export const STYLESHEET = `
:root{--fg:#1c2128;--muted:#57606a;--line:#d0d7de;--field:#6e7781;--focus:#0a3069;--bg:#f6f8fa;--accent:#1f6feb;--danger:#cf222e;--ok:#1a7f37}
*{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg);line-height:1.5}
body{margin:0;padding:0 12px 32px}
.top{max-width:560px;margin:0 auto;padding:16px 4px;display:flex;justify-content:space-between;align-items:center;gap:8px}
.brand{font-weight:600;white-space:nowrap}
.who{color:var(--muted);font-size:.9rem;overflow-wrap:anywhere;text-align:right;min-width:0}
.card{max-width:560px;margin:0 auto;background:#fff;border:1px solid var(--line);border-radius:12px;padding:24px}
h1{font-size:1.4rem;margin:0 0 8px}
h2{font-size:1.05rem;margin:20px 0 6px}
p{margin:8px 0}
.muted{color:var(--muted);font-size:.92rem}
label{display:block;font-weight:600;margin:14px 0 4px}
input[type=email],input[type=password]{width:100%;font:inherit;padding:10px 12px;border:1px solid var(--field);border-radius:8px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
input:focus{outline:3px solid var(--focus);outline-offset:2px}
.actions{display:flex;gap:10px;margin-top:20px;flex-wrap:wrap}
button{font:inherit;font-weight:600;padding:10px 18px;border-radius:8px;border:1px solid var(--field);background:#fff;color:var(--fg);cursor:pointer;min-height:44px}
button.link{font-weight:400;padding:0;border:0;min-height:24px;background:none;color:var(--accent);text-decoration:underline}
.reference{font-size:.92rem}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button.danger{color:var(--danger);border-color:var(--danger)}
.notice{border:1px solid var(--line);background:var(--bg);border-radius:8px;padding:10px 12px;margin:12px 0}
.alert{border:1px solid var(--danger);background:#fff5f5;color:var(--danger);border-radius:8px;padding:10px 12px;margin:12px 0}
.badge{display:inline-block;font-size:.8rem;font-weight:600;padding:1px 8px;border-radius:999px;border:1px solid var(--line);color:var(--muted);vertical-align:middle}
.badge.warn{border-color:#bf8700;color:#7d4e00;background:#fff8c5}
.badge.ok{border-color:var(--ok);color:var(--ok)}
.domain{font-size:1.15rem;font-weight:600;margin:4px 0 8px;overflow-wrap:anywhere}
ul.scopes{margin:4px 0 0;padding-left:20px}
ul.scopes li{margin:2px 0}
fieldset.scopes{border:0;margin:12px 0 0;padding:0}
fieldset.scopes legend{font-weight:600;padding:0;margin-bottom:2px}
.choice{display:grid;grid-template-columns:20px 1fr;gap:0 10px;padding:4px 0}
.choice input{width:20px;height:20px;margin:3px 0 0;grid-row:1/3}
.choice label{display:block;font-weight:400;margin:0}
.decide{position:sticky;bottom:0;background:#fff;border-top:1px solid var(--line);padding:10px 0;margin-top:12px;gap:8px}
.decide button{padding:10px 14px}
html:has(.decide){scroll-padding-bottom:120px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;background:var(--bg);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
.app{border-top:1px solid var(--line);padding-top:12px;margin-top:16px}
.app:first-of-type{border-top:0;margin-top:8px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0;font-size:.92rem}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
a{color:var(--accent)}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.heading-row{display:flex;justify-content:space-between;align-items:center;gap:8px;flex-wrap:wrap}
.heading-row h1{margin:0}
.app h2{margin:0 0 2px}
.app p{margin:2px 0}
.app .actions{margin-top:8px}
details summary{cursor:pointer;color:var(--accent);min-height:24px}
.find .actions{margin-top:0;flex-wrap:nowrap}
input[type=search]{flex:1;min-width:0;font:inherit;padding:10px 12px;border:1px solid var(--field);border-radius:8px}
.revoke-all{border:1px solid var(--line);background:var(--bg);border-radius:8px;padding:8px 12px;margin:12px 0}
`;

/** A static asset answered with an ETag, revalidated after an hour (a day for the icon). */
function serveAsset(
  app: FastifyInstance,
  path: string,
  type: string,
  body: string | Buffer,
  maxAge: number,
  summary: string,
): void {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
  const media = type.split(';')[0]!;
  const schema = {
    tags: ['pages'],
    summary,
    response: {
      200: {
        description: summary,
        content: {
          [media]: {
            schema: { type: 'string', ...(media.startsWith('image/') ? { format: 'binary' } : {}) },
          },
        },
      },
      304: { description: 'Not modified (If-None-Match matched the ETag)' },
    },
  };
  app.get(path, { schema }, (request, reply) => {
    reply.headers({ etag, 'cache-control': `public, max-age=${maxAge}` });
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(type).send(body);
  });
}

/** The stylesheet, and the icon every browser asks for (favicon.ts). */
export async function assetRoutes(app: FastifyInstance): Promise<void> {
  serveAsset(app, STYLESHEET_PATH, 'text/css; charset=utf-8', STYLESHEET, 3600, 'The pages’ stylesheet');
  serveAsset(app, FAVICON_PATH, 'image/x-icon', FAVICON, 86400, 'The icon browsers ask for');
}
