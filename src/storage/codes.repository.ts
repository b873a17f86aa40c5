import type { Kysely } from 'kysely';
import { prepared } from './prepared.js';
import type { AuthorizationCode, Database } from './schema.js';

export const codeByHash = prepared((db, codeHash: string) =>
  db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash),
);

export const consumeCodeOnce = prepared((db, codeHash: string, now: number) =>
  db
    .updateTable('authorization_codes')
    .set({ consumed_at: now })
    .where('code_hash', '=', codeHash)
    .where('consumed_at', 'is', null)
    .returningAll(),
);

export function findCode(db: Kysely<Database>, codeHash: string): Promise<AuthorizationCode | undefined> {
  return codeByHash.first(db, codeHash);
}
