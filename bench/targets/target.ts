/** What the runner knows about a server under test. */
import type { ServerProcess } from '../child.js';
import type { PageDriver } from '../oauth.js';
import type { RoundTripCounter } from '../pg-stats.js';

export type OAuthTargetName = 'schoolauth' | 'node-oidc-provider';
export type TargetName = OAuthTargetName | 'bare-fastify';

export interface OAuthTarget {
  readonly name: OAuthTargetName;
  readonly server: ServerProcess;
  /** Scopes of the OpenID grant: userinfo, introspection, the protected API, code-oidc. */
  readonly readerScope: string;
  /** One non-OpenID scope: the agent grant of the code, refresh and revocation scenarios. */
  readonly agentScope: string;
  /** Answers sign-in and consent pages on the authorization path. */
  readonly answerPage: PageDriver;
  /** A small protected API resource read with the bench access token (schoolauth only). */
  readonly protectedPath?: string;
  /** Counts database round trips per request over a scenario's measured runs (PostgreSQL). */
  readonly roundTrips?: RoundTripCounter;
}

export interface BaselineTarget {
  readonly name: 'bare-fastify';
  readonly server: ServerProcess;
  readonly path: string;
}
