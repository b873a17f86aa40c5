/** The clients: registration, and the lookups a request authenticates its client with. */
import type { AccessTokenWithAccount } from '../bearer-tokens.repository.js';
import type {
  AuditEventRow,
  AuthorizationCode,
  Client,
  ClientMetadataRule,
  RefreshToken,
} from '../schema.js';

/** The client by id and the row presented with it: each undefined when there is none. */
export interface ClientWith<T> {
  readonly client: Client | undefined;
  readonly row: T | undefined;
}

export interface Clients {
  /** A dynamic registration (RFC 7591): the client and its audit row, committed together or not at all. */
  register(client: Client, audit: AuditEventRow): Promise<void>;
  /** The client with this id (an id no client can have, e.g. with a NUL, is simply unknown). */
  find(clientId: string): Promise<Client | undefined>;
  /**
   * The client and, read with it (one statement where that saves a round trip), the
   * authorization code with this hash, whoever's it is: the caller judges both, in its own order.
   */
  findWithCode(clientId: string, codeHash: string): Promise<ClientWith<AuthorizationCode>>;
  /** As findWithCode, for a refresh token. */
  findWithRefreshToken(clientId: string, tokenHash: string): Promise<ClientWith<RefreshToken>>;
  /** As findWithCode, for an access token with its account's disabled flag (introspection). */
  findWithAccessToken(clientId: string, tokenHash: string): Promise<ClientWith<AccessTokenWithAccount>>;
  /**
   * Writes the row of a client identified by a metadata document (docs/decisions.md "Client ID
   * Metadata Documents"): inserted the first time, afterwards brought up to the latest valid
   * document; `disabled`, `created_at` and `last_used_at` stay as they are.
   */
  saveMetadataClient(client: Client): Promise<void>;
  /** The operator's rules for metadata-document clients by host (`schoolauth client block/trust`). */
  metadataRules(): Promise<ClientMetadataRule[]>;
}
