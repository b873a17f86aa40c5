/**
 * A cheap fingerprint of everything a request could change in the database: per table, the row
 * count plus the counts/maxima of every column that records a state change. One round trip, so
 * it can run after every refused request of the hostile suite.
 */

import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { dialectOf } from '../../src/storage/dialect.js';
import type { Database } from '../../src/storage/schema.js';

/** Tables a refused request may legitimately touch: the audit trail, rate-limit and sign-in counters. */
const EXCLUDED = new Set([
  'audit_events',
  'rate_limits',
  'signin_throttle',
  'kysely_migration',
  'kysely_migration_lock',
]);
const STATE_COLUMNS =
  /^(revoked_at|consumed_at|rotated_at|retired_at|disabled|last_used_at|last_seen_at|updated_at|expires_at|scopes|status)$/;

export async function fingerprintQuery(db: Kysely<Database>): Promise<() => Promise<string>> {
  // PostgreSQL introspection lists every schema's tables; only this app's schema (the search path)
  // counts, or concurrent suites' schemas would change the fingerprint and overflow the select list.
  const own = await ownSchema(db);
  const tables = (await db.introspection.getTables()).filter(
    (t) => !EXCLUDED.has(t.name) && !t.isView && (own === undefined || t.schema === own),
  );
  const parts: string[] = [];
  for (const table of tables) {
    parts.push(`(select count(*) from "${table.name}")`);
    for (const column of table.columns.filter((c) => STATE_COLUMNS.test(c.name))) {
      const numeric = /^(int|integer|bigint|smallint|real|double|numeric)/i.test(column.dataType);
      const expr = numeric ? `coalesce(sum("${column.name}"), 0)` : `max("${column.name}")`;
      parts.push(
        `(select count("${column.name}") from "${table.name}")`,
        `(select ${expr} from "${table.name}")`,
      );
    }
  }
  const query = sql.raw<Record<string, unknown>>(`select ${parts.map((p, i) => `${p} as c${i}`).join(', ')}`);
  return async () => JSON.stringify((await query.execute(db)).rows[0]);
}

async function ownSchema(db: Kysely<Database>): Promise<string | undefined> {
  if (dialectOf(db) !== 'postgres') return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}
