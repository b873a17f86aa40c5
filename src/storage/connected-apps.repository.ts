import type { Kysely } from 'kysely';
import type { ClientKind, Database } from './schema.js';

export interface LiveGrantRow {
  readonly client_id: string;
  readonly client_name: string;
  readonly client_kind: ClientKind;
  readonly redirect_uris: string;
  readonly scopes: string;
  readonly created_at: number;
  readonly last_used_at: number;
}

/** Every live grant of one person, with its client, oldest first. */
export function liveGrantsOf(db: Kysely<Database>, accountId: string): Promise<LiveGrantRow[]> {
  return db
    .selectFrom('grants')
    .innerJoin('clients', 'clients.id', 'grants.client_id')
    .select([
      'grants.client_id',
      'clients.name as client_name',
      'clients.kind as client_kind',
      'clients.redirect_uris',
      'grants.scopes',
      'grants.created_at',
      'grants.last_used_at',
    ])
    .where('grants.account_id', '=', accountId)
    .where('grants.revoked_at', 'is', null)
    .orderBy('grants.created_at')
    .execute();
}
