import type { Kysely } from 'kysely';
import type { AuthorizationCode, Database, Grant } from './schema.js';

/** A new grant and its authorization code, written together. */
export async function insertGrantWithCode(
  db: Kysely<Database>,
  grant: Grant,
  code: AuthorizationCode,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('grants').values(grant).execute();
    await trx.insertInto('authorization_codes').values(code).execute();
  });
}
