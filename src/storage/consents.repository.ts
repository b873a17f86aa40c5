import type { Kysely } from 'kysely';
import type { Consent, Database } from './schema.js';

export function findConsent(
  db: Kysely<Database>,
  accountId: string,
  clientId: string,
): Promise<Consent | undefined> {
  return db
    .selectFrom('consents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

/** Records the scopes a person has allowed a client (one row per person and client). */
export async function saveConsent(
  db: Kysely<Database>,
  accountId: string,
  clientId: string,
  scopes: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('consents')
    .values({ account_id: accountId, client_id: clientId, scopes, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'client_id']).doUpdateSet({ scopes, updated_at: now }))
    .execute();
}
