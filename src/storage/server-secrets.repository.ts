/**
 * Keys the server creates for itself, once per database: every instance on one PostgreSQL reads
 * the same row, so what one instance signs another accepts. Created on first use with fresh
 * CSPRNG output; concurrent first uses (several instances starting at once) agree, because the
 * insert does nothing when a row exists and everyone then reads the row that won.
 */
import type { Kysely } from 'kysely';
import { randomBase64url } from '../crypto/random.js';
import type { ServerSecrets } from './contract/sessions.js';
import type { Database } from './schema.js';

/** The 32-byte secret named `name`, created on first use. */
async function serverSecret(db: Kysely<Database>, name: string, now: number): Promise<Buffer> {
  await db
    .insertInto('server_secrets')
    .values({ name, value: randomBase64url(32), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

export function serverSecretsSection(db: Kysely<Database>): ServerSecrets {
  return { get: (name, now) => serverSecret(db, name, now) };
}
