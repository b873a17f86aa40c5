/**
 * Pruning: deletes rows nothing can use any more. Only the dead goes: expired codes, tokens,
 * sessions, rate-limit windows and forgotten sign-in counts; grants left with no code or token;
 * and self-registered clients abandoned by liveness (SPEC §5): no grant left and no use for
 * CLIENT_IDLE_TTL. Clients known from a metadata document go the same way (their document brings
 * them back at the next authorization request). Registered integrations are never pruned.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../storage/schema.js';

/**
 * Rows are deleted only when they died this long ago, so a request that judged a row alive a
 * moment before it expired (a code redeemed in its last second) never loses what it writes.
 */
export const PRUNE_MARGIN = 300;

export interface PruneCounts {
  codes: number;
  accessTokens: number;
  refreshTokens: number;
  grants: number;
  sessions: number;
  /** Rate-limit windows and sign-in counts that are over. */
  rateLimits: number;
  clients: number;
}

type PruneConfig = Pick<Config, 'codeTtl' | 'sessionAbsoluteTtl' | 'clientIdleTtl'>;

function deleted(result: { numDeletedRows: bigint }): number {
  return Number(result.numDeletedRows);
}

/** Deletes every dead row; returns how many of each kind went. */
export async function prune(db: Kysely<Database>, config: PruneConfig, now: number): Promise<PruneCounts> {
  const dead = now - PRUNE_MARGIN;
  // Consumed codes stay until they expire: a replay inside the lifetime must still be recognised
  // (RFC 6749 §4.1.2) and revoke what the code issued.
  const codes = await db.deleteFrom('authorization_codes').where('expires_at', '<=', dead).executeTakeFirst();
  // Rotated refresh tokens stay until their own expiry, so reuse is detected (RFC 9700 §4.14.2).
  const accessTokens = await db
    .deleteFrom('access_tokens')
    .where('expires_at', '<=', dead)
    .executeTakeFirst();
  const refreshTokens = await db
    .deleteFrom('refresh_tokens')
    .where('expires_at', '<=', dead)
    .executeTakeFirst();
  const grants = await pruneGrants(db, now - config.codeTtl - PRUNE_MARGIN);
  const sessions = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([eb('expires_at', '<=', now), eb('created_at', '<=', now - config.sessionAbsoluteTtl)]),
    )
    .executeTakeFirst();
  const rateLimits = await db.deleteFrom('rate_limits').where('reset_at', '<=', now).executeTakeFirst();
  const signinCounts = await db
    .deleteFrom('signin_throttle')
    .where('forget_at', '<=', now)
    .executeTakeFirst();
  const clients = await pruneIdleClients(db, now - config.clientIdleTtl);
  return {
    codes: deleted(codes),
    accessTokens: deleted(accessTokens),
    refreshTokens: deleted(refreshTokens),
    grants,
    sessions: deleted(sessions),
    rateLimits: deleted(rateLimits) + deleted(signinCounts),
    clients,
  };
}

/** A grant with no code and no token left can never issue anything again. */
async function pruneGrants(db: Kysely<Database>, createdBefore: number): Promise<number> {
  const result = await db
    .deleteFrom('grants')
    .where('created_at', '<=', createdBefore)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('authorization_codes')
            .select('authorization_codes.grant_id')
            .whereRef('authorization_codes.grant_id', '=', 'grants.id')
            .unionAll(
              selectFrom('access_tokens')
                .select('access_tokens.grant_id')
                .whereRef('access_tokens.grant_id', '=', 'grants.id'),
            )
            .unionAll(
              selectFrom('refresh_tokens')
                .select('refresh_tokens.grant_id')
                .whereRef('refresh_tokens.grant_id', '=', 'grants.id'),
            ),
        ),
      ),
    )
    .executeTakeFirst();
  return deleted(result);
}

/**
 * SPEC §5: a dynamic (or metadata-document) client with no grant (so no code or token either) and no use since
 * `idleBefore` is abandoned. Any grant left — live, or revoked with tokens not yet expired —
 * keeps it. Its remembered consents go with it (ON DELETE CASCADE).
 */
async function pruneIdleClients(db: Kysely<Database>, idleBefore: number): Promise<number> {
  const result = await db
    .deleteFrom('clients')
    .where('kind', 'in', ['dynamic', 'metadata_document'])
    .where((eb) => eb(eb.fn.coalesce('last_used_at', 'created_at'), '<=', idleBefore))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('grants').select('grants.id').whereRef('grants.client_id', '=', 'clients.id'))),
    )
    .executeTakeFirst();
  return deleted(result);
}
