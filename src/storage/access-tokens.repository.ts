import type { Kysely } from 'kysely';
import type { AccessToken, Database } from './schema.js';

/** The one indexed lookup behind every bearer request. */
export function findAccessToken(db: Kysely<Database>, tokenHash: string): Promise<AccessToken | undefined> {
  return db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}
