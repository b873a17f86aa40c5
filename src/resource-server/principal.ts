/**
 * Who a protected request acts for. A request without an Authorization header is anonymous
 * (docs/decisions.md "What the customer's interface description fixes"); a request with a valid token acts as the person who granted it, limited to the
 * token's scopes.
 */
import type { TokenAccountRow } from '../storage/contract/bearer-tokens.js';

export type Principal =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'person';
      readonly accountId: string;
      readonly clientId: string;
      readonly scopes: ReadonlySet<string>;
    };

export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous' });

/** What an operation needs: the one scope a token must carry, and whether anonymous is served. */
export interface Access {
  readonly scope: string;
  /** true when the operation serves public data to a request without a token. */
  readonly anonymous: boolean;
  /**
   * The operation answers from the person's account and memberships: on PostgreSQL the guard
   * reads them with the token, in one statement, and leaves the rows on `request.tokenAccount`.
   */
  readonly withAccount?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /** The rows read with the token for an `access.withAccount` route on PostgreSQL; else null. */
    tokenAccount: TokenAccountRow[] | null;
  }
  interface FastifyContextConfig {
    /** Set on every /api/v1 route; read by the resource-server guard and the OpenAPI security. */
    access?: Access;
  }
}
