/**
 * Reading HTML form posts. Routes that answer a browser (the pages and the authorization
 * endpoint) answer with pages, never JSON, so they take any body (and query string) and read it
 * field by field: a field sent twice is treated as absent.
 */
import type { FastifyRequest } from 'fastify';

export type FormBody = Readonly<Record<string, unknown>>;

function fieldsOf(value: unknown): FormBody {
  // Parsed by formbody or the query-string parser and never validated (documentOnly): an object
  // of unknown values, each read by field() below.
  return typeof value === 'object' && value !== null ? (value as FormBody) : {};
}

export function formBody(request: FastifyRequest): FormBody {
  return fieldsOf(request.body);
}

/** The query string of a browser route, read the same way as its form. */
export function formQuery(request: FastifyRequest): FormBody {
  return fieldsOf(request.query);
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
