/**
 * Page routes: where sign-in may return to, and how a page route is described in /openapi.json.
 * Reading the posted form itself is ../http/form-fields.ts (shared with the authorization endpoint).
 */
import type { RouteShorthandOptions } from 'fastify';
import { documentOnly } from '../http/form-fields.js';

/** A same-origin path to return to after sign-in; anything else (other origins, `//host`) is refused. */
export function safeReturnPath(value: string | undefined, fallback: string): string {
  if (!value || value.length > 4096) return fallback;
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : fallback;
}

const HTML = { 'text/html': { schema: { type: 'string' } } } as const;

const fieldsOf = (fields: Readonly<Record<string, string>>) => ({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(fields).map(([n, d]) => [n, { type: 'string', description: d }]),
  ),
});

export interface PageDoc {
  readonly summary: string;
  /** What the 200 page shows, when the route answers with one. */
  readonly page?: string;
  /** Where a 303 sends the browser, when it may. */
  readonly redirect?: string;
  readonly query?: Readonly<Record<string, string>>;
  /** Fields of the HTML form that posts here; the CSRF field makes a 403 page possible. */
  readonly form?: Readonly<Record<string, string>>;
}

/** Route options of a browser page: in /openapi.json (tag `pages`, text/html), validated by hand. */
export function pageRoute(doc: PageDoc): RouteShorthandOptions {
  const response: Record<number, unknown> = {};
  if (doc.page) response[200] = { description: doc.page, content: HTML };
  if (doc.redirect) response[303] = { description: doc.redirect };
  if (doc.form) {
    response[403] = {
      description: 'HTML page "This form has expired": a missing or stale CSRF token',
      content: HTML,
    };
  }
  return {
    schema: {
      tags: ['pages'],
      summary: doc.summary,
      description: 'A page for a person in a browser, not an API: it answers HTML and form posts.',
      ...(doc.query ? { querystring: fieldsOf(doc.query) } : {}),
      ...(doc.form ? { body: fieldsOf(doc.form), consumes: ['application/x-www-form-urlencoded'] } : {}),
      response,
    },
    validatorCompiler: documentOnly,
  };
}
