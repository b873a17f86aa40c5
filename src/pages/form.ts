/**
 * Reading HTML form posts. Page routes answer with pages, never JSON, so they take any body and
 * read it field by field: a field sent twice is treated as absent.
 */
import type { FastifyRequest } from 'fastify';

export type FormBody = Readonly<Record<string, unknown>>;

export function formBody(request: FastifyRequest): FormBody {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as FormBody) : {};
}

export function field(body: FormBody, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

/** A same-origin path to return to after sign-in; anything else (other origins, `//host`) is refused. */
export function safeReturnPath(value: string | undefined, fallback: string): string {
  if (!value || value.length > 4096) return fallback;
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : fallback;
}

/** Route schema for page routes: kept out of /openapi.json, the body read by hand (see above). */
export const PAGE_ROUTE_SCHEMA = { hide: true } as const;
