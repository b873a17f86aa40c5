import type { Kysely } from 'kysely';
import type { AuthorizationCode, Database } from './schema.js';

export function findCode(db: Kysely<Database>, codeHash: string): Promise<AuthorizationCode | undefined> {
  return db
    .selectFrom('authorization_codes')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
}

/**
 * Marks a code used, once: the single atomic statement that makes a code single-use on every
 * instance (RFC 6749 §4.1.2). Undefined when it was already consumed.
 */
export function consumeCode(
  db: Kysely<Database>,
  codeHash: string,
  now: number,
): Promise<AuthorizationCode | undefined> {
  return db
    .updateTable('authorization_codes')
    .set({ consumed_at: now })
    .where('code_hash', '=', codeHash)
    .where('consumed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
