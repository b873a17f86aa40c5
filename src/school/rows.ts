/**
 * New rows of a family: ids that sort by creation time (so the API's page cursor is simply the
 * last id seen), and validated values turned into columns (booleans are 0/1 integers, JSON values
 * are text). Shared by the school API (api/builder.ts) and the demo seed (demo/content.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Row } from '../storage/contract/school.js';
import type { FamilyDefinition } from './define.js';

let lastMillis = 0;
let sequence = 0;

/** `crs_` + 9 base-36 digits of milliseconds + 4-digit sequence + 12 hex random: ordered by creation. */
export function newId(prefix: string): string {
  const millis = Date.now();
  sequence = millis === lastMillis ? sequence + 1 : 0;
  lastMillis = millis;
  return `${prefix}_${millis.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${randomBytes(6).toString('hex')}`;
}

/** Wire values (validated already) → column values. */
export function toColumns(def: FamilyDefinition, body: Record<string, unknown>): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(body)) {
    const f = def.fields[name];
    if (!f) continue;
    if (value === null || value === undefined) row[name] = null;
    else if (f.kind === 'boolean') row[name] = value ? 1 : 0;
    else if (f.kind === 'json') row[name] = JSON.stringify(value);
    else row[name] = value as string | number;
  }
  return row;
}
