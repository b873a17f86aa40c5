/**
 * Reading HTML form posts. Routes that answer a browser (the pages and the authorization
 * endpoint) answer with pages, never JSON, so they take any body and read it field by field: a
 * field sent twice is treated as absent.
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

/**
 * A schema that documents parameters without enforcing them: a browser route answers bad input
 * with a page (or, at the authorization endpoint, an error redirect), never a JSON 400, so it
 * reads what it gets by hand.
 */
export const documentOnly = () => () => true;
