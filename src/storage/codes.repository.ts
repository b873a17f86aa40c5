import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { AuthorizationCode, Database } from './schema.js';

const byHash = prepared((db, codeHash: string) =>
  db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash),
);

const consume = prepared((db, codeHash: string, now: number) =>
  db
    .updateTable('authorization_codes')
    .set({ consumed_at: now })
    .where('code_hash', '=', codeHash)
    .where('consumed_at', 'is', null)
    .returningAll(),
);

export function findCode(db: Kysely<Database>, codeHash: string): Promise<AuthorizationCode | undefined> {
  return byHash.first(db, codeHash);
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
  return consume.first(db, codeHash, now);
}
