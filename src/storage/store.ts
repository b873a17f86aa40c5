/**
 * The store contract (docs/architecture.md "The store"): everything the layers above
 * src/storage/ ask of the database, as operations each of which is whole on its own: atomic,
 * with its reads, checks and writes inside it. Two backends implement it, sqlite/store.ts and
 * postgres/store.ts; test/store/ runs one contract suite against both. Nothing above
 * src/storage/ knows which one it has (.dependency-cruiser.cjs "backend-choice-in-storage").
 *
 * Each section is declared in contract/ and named for what it holds.
 */
import type { Kysely } from 'kysely';
import type { Accounts } from './contract/accounts.js';
import type { Audit } from './contract/audit.js';
import type { BearerTokens } from './contract/bearer-tokens.js';
import type { ClientAdmin } from './contract/client-admin.js';
import type { Clients } from './contract/clients.js';
import type { ConnectedApps } from './contract/connected-apps.js';
import type { DeviceAuthorizations } from './contract/device-authorizations.js';
import type { DpopNonces, DpopProofs } from './contract/dpop.js';
import type { Instances } from './contract/instances.js';
import type { Issuance } from './contract/issuance.js';
import type { RateLimitWindows } from './contract/rate-limit-windows.js';
import type { Revocation } from './contract/revocation.js';
import type { SchoolData } from './contract/school.js';
import type { ServerSecrets, Sessions } from './contract/sessions.js';
import type { SigninThrottle } from './contract/signin-throttle.js';
import type { SigningKeys } from './contract/signing-keys.js';
import type { Consents, Tokens } from './contract/tokens.js';
import type { Upkeep } from './contract/upkeep.js';
import type { Database } from './schema.js';

/** The database as one request's work sees it inside `oneTransaction`. */
export interface Scope {
  readonly store: Store;
}

/**
 * A scope as the backends make it: also the transaction's Kysely, which only storage itself (and
 * the tests of the transaction mechanics) may use; above storage a scope is its store.
 */
export interface TransactionScope extends Scope {
  readonly db: Kysely<Database>;
}

export interface Store {
  readonly accounts: Accounts;
  readonly audit: Audit;
  readonly bearerTokens: BearerTokens;
  readonly clients: Clients;
  /** What the operator does to clients and to the metadata-document rules. */
  readonly clientAdmin: ClientAdmin;
  readonly connectedApps: ConnectedApps;
  readonly consents: Consents;
  /** DPoP (RFC 9449): the proofs seen and the server's nonces. */
  readonly dpopNonces: DpopNonces;
  readonly dpopProofs: DpopProofs;
  /** The device authorization grant (RFC 8628): requests from creation to the poll that spends them. */
  readonly deviceAuthorizations: DeviceAuthorizations;
  /** The server's own jobs and probes: the prune's deletes, the successor erasure, /readyz. */
  readonly upkeep: Upkeep;
  readonly instances: Instances<Scope>;
  readonly issuance: Issuance;
  readonly rateLimitWindows: RateLimitWindows;
  readonly revocation: Revocation;
  /** The school's own data: schools, the resource families' rows, uploads, analytics. */
  readonly school: SchoolData;
  readonly serverSecrets: ServerSecrets;
  readonly sessions: Sessions;
  readonly signingKeys: SigningKeys;
  readonly signinThrottle: SigninThrottle;
  readonly tokens: Tokens;
  /**
   * Runs a request's reads and writes as one transaction where that saves the database work
   * (PostgreSQL: one BEGIN … COMMIT instead of one per statement; docs/performance.md
   * "PostgreSQL"); SQLite runs `work` as it is, each operation its own transaction. A failure of
   * `work` rolls back what it wrote inside; a deadlock or serialization failure reruns the whole
   * of it (storage/transaction.ts), so `work` must not act outside the database before it ends.
   */
  oneTransaction<T>(work: (scope: Scope) => Promise<T>): Promise<T>;
}
