/**
 * Between the wire and the row: booleans are 0/1 integers, JSON values are text, and the API's
 * own timestamps (epoch seconds in storage) are RFC 3339 on the wire. Ids sort by creation time
 * (school/rows.ts) so a page cursor is simply the last id seen.
 */
import { badRequest } from '../errors.js';
import type { FamilyDefinition } from '../school/define.js';
import type { Row } from '../storage/contract/school.js';

export function isoTime(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

/** A row → the item on the wire; `publicView` drops private fields. */
export function toItem(def: FamilyDefinition, row: Row, publicView: boolean): Record<string, unknown> {
  const item: Record<string, unknown> = { id: row.id };
  if (def.parent) item[def.parent.column] = row[def.parent.column];
  for (const [name, f] of Object.entries(def.fields)) {
    if (publicView && f.private) continue;
    const value = row[name];
    if (value === null || value === undefined) item[name] = null;
    else if (f.kind === 'boolean') item[name] = Number(value) === 1;
    else if (f.kind === 'json') item[name] = JSON.parse(String(value));
    else if (f.kind === 'integer') item[name] = Number(value);
    else item[name] = value;
  }
  item.created_at = isoTime(Number(row.created_at));
  item.updated_at = isoTime(Number(row.updated_at));
  return item;
}

/** Cursors are opaque to clients: base64url of the last id. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[a-z]{3}_[0-9a-z]+$/.test(id)) {
    throw badRequest(
      'query parameter "cursor" is not a cursor this API gave out; send the next_cursor of the previous page',
    );
  }
  return id;
}

/** Cursor over school slugs (the list of the caller's schools). */
export function slugCursor(slug: string): string {
  return Buffer.from(slug, 'utf8').toString('base64url');
}

export function decodeSlugCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const slug = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[a-z0-9-]{1,63}$/.test(slug)) {
    throw badRequest(
      'query parameter "cursor" is not a cursor this API gave out; send the next_cursor of the previous page',
    );
  }
  return slug;
}
