/**
 * The token request's client and the code or refresh token it presents, read together (store
 * `clients.findWithCode` / `findWithRefreshToken`: one statement where that saves a round trip).
 * Client authentication reads the client from it (client-auth.ts `read`) and the grant the code or
 * token, keyed as the grant keys it; every check runs on these rows in its own order.
 */
import { hashSecret } from '../../crypto/tokens.js';
import type { ClientWith } from '../../storage/contract/clients.js';
import type { AuthorizationCode, Client, RefreshToken } from '../../storage/schema.js';
import type { Store } from '../../storage/store.js';
import type { ReadWithClient } from './issue.js';
import type { TokenParams } from './params.js';

export type GrantType = 'authorization_code' | 'refresh_token';

export interface JoinedRead {
  /** Reads the client (client-auth.ts `read`), and with it the presented code or token. */
  read(clientId: string): Promise<Client | undefined>;
  /** The code read with the client; undefined when none was (no code sent, or another grant). */
  code(): ReadWithClient<AuthorizationCode> | undefined;
  /** The refresh token read with the client; undefined when none was. */
  refreshToken(): ReadWithClient<RefreshToken> | undefined;
}

export function joinedRead(store: Store, grantType: GrantType, params: TokenParams): JoinedRead {
  const value = grantType === 'authorization_code' ? params.code : params.refresh_token;
  // Nothing presented: the grant answers invalid_request once the client is authenticated.
  const hash = value === undefined || value === '' ? undefined : hashSecret(value);
  let code: ReadWithClient<AuthorizationCode> | undefined;
  let refreshToken: ReadWithClient<RefreshToken> | undefined;
  const keep = <T>(found: ClientWith<T>, save: (read: ReadWithClient<T>) => void): Client | undefined => {
    save({ hash: hash!, row: found.row });
    return found.client;
  };
  return {
    read: async (clientId) => {
      if (hash === undefined) return store.clients.find(clientId);
      if (grantType === 'authorization_code') {
        return keep(await store.clients.findWithCode(clientId, hash), (read) => {
          code = read;
        });
      }
      return keep(await store.clients.findWithRefreshToken(clientId, hash), (read) => {
        refreshToken = read;
      });
    },
    code: () => code,
    refreshToken: () => refreshToken,
  };
}
