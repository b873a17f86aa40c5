/**
 * What "Connected apps" (docs/decisions.md "Authorization endpoint") lists and forgets: every app a person has let in — by a
 * remembered consent or by a live grant — and, on Revoke, all of it at once.
 */
import type { Kysely, Transaction } from 'kysely';
import { revokeAccountGrantsWithin } from './grants.repository.js';
import type { Client, ClientKind, Database } from './schema.js';
import { inTransaction } from './transaction.js';

/** One consent or one live grant of a person, with its client. */
export interface ConnectionRow {
  readonly client_id: string;
  readonly client_name: string;
  readonly client_kind: ClientKind;
  readonly token_endpoint_auth_method: Client['token_endpoint_auth_method'];
  readonly redirect_uris: string;
  /** When the client registered (or was first seen): tells apps of one name apart. */
  readonly client_created_at: number;
  readonly scopes: string;
  readonly created_at: number;
  /** The latest use of any of the person's grants to this client; null when none was used. */
  readonly last_used_at: number | null;
  /** A live (unrevoked) grant, rather than a remembered consent. */
  readonly live: boolean;
  /** A live grant with a live token bound to a DPoP key the app holds (RFC 9449). */
  readonly keyBound: boolean;
}

const CLIENT_COLUMNS = [
  'clients.name as client_name',
  'clients.kind as client_kind',
  'clients.token_endpoint_auth_method',
  'clients.redirect_uris',
  'clients.created_at as client_created_at',
] as const;

/** Every live grant of one person, with its client, oldest first. */
async function liveGrantsOf(db: Kysely<Database>, accountId: string): Promise<ConnectionRow[]> {
  const rows = await db
    .selectFrom('grants')
    .innerJoin('clients', 'clients.id', 'grants.client_id')
    .select((eb) => [
      ...CLIENT_COLUMNS,
      'grants.client_id',
      'grants.scopes',
      'grants.created_at',
      'grants.last_used_at',
      // A live refresh or access token of the grant bound to a DPoP key (RFC 9449 §5).
      eb
        .or([
          eb.exists(
            eb
              .selectFrom('refresh_tokens')
              .select('refresh_tokens.token_hash')
              .whereRef('refresh_tokens.grant_id', '=', 'grants.id')
              .where('refresh_tokens.jkt', 'is not', null)
              .where('refresh_tokens.revoked_at', 'is', null),
          ),
          eb.exists(
            eb
              .selectFrom('access_tokens')
              .select('access_tokens.token_hash')
              .whereRef('access_tokens.grant_id', '=', 'grants.id')
              .where('access_tokens.jkt', 'is not', null)
              .where('access_tokens.revoked_at', 'is', null),
          ),
        ])
        .as('key_bound'),
    ])
    .where('grants.account_id', '=', accountId)
    .where('grants.revoked_at', 'is', null)
    .orderBy('grants.created_at')
    .execute();
  // SQLite answers the condition as 0 or 1, PostgreSQL as a boolean.
  return rows.map(({ key_bound, ...row }) => ({ ...row, live: true, keyBound: Boolean(key_bound) }));
}

/**
 * Every remembered consent of one person, with its client and the last use of any grant to it
 * (revoked ones too): an app whose tokens are all gone is still let in by its consent.
 */
async function consentsOf(db: Kysely<Database>, accountId: string): Promise<ConnectionRow[]> {
  const rows = await db
    .selectFrom('consents')
    .innerJoin('clients', 'clients.id', 'consents.client_id')
    .select((eb) => [
      ...CLIENT_COLUMNS,
      'consents.client_id',
      'consents.scopes',
      'consents.created_at',
      eb
        .selectFrom('grants')
        .select((g) => g.fn.max('grants.last_used_at').as('last'))
        .whereRef('grants.account_id', '=', 'consents.account_id')
        .whereRef('grants.client_id', '=', 'consents.client_id')
        .as('last_used_at'),
    ])
    .where('consents.account_id', '=', accountId)
    .execute();
  return rows.map((row) => ({ ...row, live: false, keyBound: false }));
}

/** A person's consents and live grants: what Connected apps lists, one entry per client. */
export async function connectionsOf(db: Kysely<Database>, accountId: string): Promise<ConnectionRow[]> {
  const [consents, grants] = await Promise.all([consentsOf(db, accountId), liveGrantsOf(db, accountId)]);
  return [...consents, ...grants];
}

/**
 * Revoke in Connected apps: ends every live grant of the client for this person with every token
 * under them, and forgets the consent, in one transaction. Answers how many grants were ended.
 */
export function forgetApp(
  db: Kysely<Database>,
  accountId: string,
  clientId: string,
  now: number,
): Promise<number> {
  return inTransaction(db, async (trx) => {
    const grants = await revokeAccountGrantsWithin(trx, accountId, now, clientId);
    await trx
      .deleteFrom('consents')
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .execute();
    return grants.length;
  });
}

/** What ending every app of a person ended: the apps (clients) and the grants under them. */
export interface AppsEnded {
  readonly apps: number;
  readonly grants: number;
}

/**
 * Every app of one person at once, inside the caller's transaction: every live grant with every
 * token under it, and every remembered consent (`account reset-password` after a suspected
 * compromise: an app the attacker let in keeps nothing). An app counts once however many grants
 * or consents it had.
 */
export async function forgetAllAppsWithin(
  trx: Transaction<Database>,
  accountId: string,
  now: number,
): Promise<AppsEnded> {
  const consents = await trx
    .selectFrom('consents')
    .select('client_id')
    .where('account_id', '=', accountId)
    .execute();
  const grants = await revokeAccountGrantsWithin(trx, accountId, now);
  await trx.deleteFrom('consents').where('account_id', '=', accountId).execute();
  const apps = new Set([...grants, ...consents].map((row) => row.client_id));
  return { apps: apps.size, grants: grants.length };
}
