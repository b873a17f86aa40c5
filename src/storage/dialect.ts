import { type Kysely, PostgresAdapter } from 'kysely';
import type { DialectName } from './connect.js';

/** Which SQL dialect a Kysely instance speaks; for the few statements that differ. */
export function dialectOf<DB>(db: Kysely<DB>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
