/**
 * The bearer lookup joined with what the request reads next, as one statement, for PostgreSQL
 * (docs/performance.md "PostgreSQL", lever 3): there every statement is a round trip and, outside
 * BEGIN … COMMIT, a transaction of its own, so a request that reads the token and then the account
 * paid two of each. One statement also reads one snapshot: the account is the one the token was
 * judged with. SQLite keeps its two reads (bearer-tokens.repository.ts, api/account.ts): there
 * both are synchronous and cached, and a join would only cost.
 */
import type { Kysely } from 'kysely';
import type { AccessTokenWithAccount } from './bearer-tokens.repository.js';
import { prepared } from './prepared.js';
import type { Account, Client, Database } from './schema.js';

const TOKEN_COLUMNS = [
  'access_tokens.client_id',
  'access_tokens.account_id',
  'access_tokens.scopes',
  'access_tokens.resource',
  'access_tokens.created_at',
  'access_tokens.expires_at',
  'access_tokens.revoked_at',
  'access_tokens.jkt',
] as const;

/** What UserInfo answers from (OIDC Core §5.4): the account's claims. */
export type AccountClaims = Pick<Account, 'id' | 'email' | 'name' | 'locale' | 'updated_at'>;

const withClaims = prepared((db, tokenHash: string) =>
  db
    .selectFrom('access_tokens')
    .leftJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .select(TOKEN_COLUMNS)
    .select([
      'accounts.disabled as account_disabled',
      'accounts.email as account_email',
      'accounts.name as account_name',
      'accounts.locale as account_locale',
      'accounts.updated_at as account_updated_at',
    ])
    .where('access_tokens.token_hash', '=', tokenHash),
);

/**
 * The bearer token with its account's claims. The account is present whenever the token is
 * accepted: a token whose account is missing reads `account_disabled` null, which acceptToken
 * refuses.
 */
export async function findBearerTokenWithClaims(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<{ token: AccessTokenWithAccount; account: AccountClaims | undefined } | undefined> {
  const row = await withClaims.first(db, tokenHash);
  if (!row) return undefined;
  const { account_email, account_name, account_locale, account_updated_at, ...token } = row;
  const account =
    account_email === null || account_name === null || account_locale === null || account_updated_at === null
      ? undefined
      : {
          id: token.account_id,
          email: account_email,
          name: account_name,
          locale: account_locale,
          updated_at: account_updated_at,
        };
  return { token, account };
}

const withMemberships = prepared((db, tokenHash: string) =>
  db
    .selectFrom('access_tokens')
    .leftJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .leftJoin('memberships', 'memberships.account_id', 'accounts.id')
    .leftJoin('schools', 'schools.id', 'memberships.school_id')
    .select(TOKEN_COLUMNS)
    .select([
      'accounts.disabled as account_disabled',
      'accounts.email as account_email',
      'accounts.name as account_name',
      'accounts.locale as account_locale',
      'accounts.created_at as account_created_at',
      'accounts.updated_at as account_updated_at',
    ])
    .select(['schools.id as school_id', 'schools.slug', 'schools.name as school_name', 'memberships.role'])
    .where('access_tokens.token_hash', '=', tokenHash),
);

/** A row of the bearer token joined with its account and one membership (or none). */
export type TokenAccountRow = Awaited<ReturnType<typeof withMemberships.all>>[number];

/**
 * The bearer token with its account and the account's memberships: one row per membership (one
 * row with null membership columns when there is none); no rows when the token is unknown.
 */
export function findBearerTokenWithMemberships(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<TokenAccountRow[]> {
  return withMemberships.all(db, tokenHash);
}

const clientWithToken = prepared((db, clientId: string, tokenHash: string) =>
  db
    .selectFrom('clients')
    .leftJoin('access_tokens', (join) => join.on('access_tokens.token_hash', '=', tokenHash))
    .leftJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .selectAll('clients')
    .select([
      'access_tokens.token_hash as token_hash',
      'access_tokens.client_id as token_client_id',
      'access_tokens.account_id as token_account_id',
      'access_tokens.scopes as token_scopes',
      'access_tokens.resource as token_resource',
      'access_tokens.created_at as token_created_at',
      'access_tokens.expires_at as token_expires_at',
      'access_tokens.revoked_at as token_revoked_at',
      'access_tokens.jkt as token_jkt',
      'accounts.disabled as account_disabled',
    ])
    .where('clients.id', '=', clientId),
);

/**
 * The client by id and, in the same statement, the access token by its key (introspection):
 * `client` undefined when no such client; `token` undefined when no such access token.
 */
export async function findClientWithAccessToken(
  db: Kysely<Database>,
  clientId: string,
  tokenHash: string,
): Promise<{ client: Client | undefined; token: AccessTokenWithAccount | undefined }> {
  // As findClient: an id with a NUL character cannot exist (PostgreSQL refuses it in text).
  if (clientId.includes('\u0000')) return { client: undefined, token: undefined };
  const row = await clientWithToken.first(db, clientId, tokenHash);
  if (!row) return { client: undefined, token: undefined };
  const {
    token_hash,
    token_client_id,
    token_account_id,
    token_scopes,
    token_resource,
    token_created_at,
    token_expires_at,
    token_revoked_at,
    token_jkt,
    account_disabled,
    ...client
  } = row;
  const token =
    token_hash === null
      ? undefined
      : {
          client_id: token_client_id!,
          account_id: token_account_id!,
          scopes: token_scopes!,
          resource: token_resource!,
          created_at: token_created_at!,
          expires_at: token_expires_at!,
          revoked_at: token_revoked_at,
          jkt: token_jkt,
          account_disabled,
        };
  return { client: client as Client, token };
}
