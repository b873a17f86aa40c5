/**
 * What the authorization endpoint shows a person, as an interface: the endpoint decides (which
 * step, which error, where to redirect) and the pages render. app.ts hands the endpoint the pages'
 * implementation (pages/authorize-view.ts), so the authorization server never imports the pages
 * layer, while the pages may use its policy (the `oauth-not-pages` rule, .dependency-cruiser.cjs).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ActiveSession } from '../../sessions/sessions.js';
import type { Client } from '../../storage/schema.js';
import type { RequestParams } from './params.js';
import type { AuthorizationRequest, MetadataIdentity, PageProblem } from './validate.js';

/** The hidden `step` field says which page a POST answers (`switch`: "Not you?" on consent). */
export type Step = 'signin' | 'consent' | 'switch';

export interface Flow {
  readonly params: RequestParams;
  readonly client: Client;
  readonly redirectUri: string;
  /** Set when the client is known from its metadata document (docs/decisions.md "Client ID Metadata Documents"). */
  readonly metadata: MetadataIdentity | undefined;
  readonly request: AuthorizationRequest;
}

/** What the consent page shows besides the request (incremental authorization). */
export interface ConsentShown {
  /** The requested scopes the person allowed this app before: listed, not asked about again. */
  readonly alreadyAllowed: readonly string[];
  /** When every requested scope was allowed before (epoch seconds), for a page shown anyway. */
  readonly allowedBefore?: number | undefined;
  /** The form came back with nothing to grant: 400 and the page again, saying so. */
  readonly nothingChosen?: boolean;
}

/** A failed sign-in, shown again on the sign-in step (429 when throttled). */
export interface SignInFailure {
  readonly email: string | undefined;
  readonly message: string;
  readonly status: 200 | 429;
}

export interface AuthorizeView {
  /** The sign-in step, carrying the validated request as hidden fields. */
  signIn(
    ctx: AppContext,
    request: FastifyRequest,
    reply: FastifyReply,
    flow: Flow,
    failure?: SignInFailure,
  ): FastifyReply;
  /** The consent step: a tick box for each requested scope not allowed before. */
  consent(
    ctx: AppContext,
    reply: FastifyReply,
    flow: Flow,
    session: ActiveSession,
    shown: ConsentShown,
  ): Promise<FastifyReply>;
  /** An error page: client or redirect URI not verified, so never a redirect (RFC 6749 §4.1.2.1). */
  problem(reply: FastifyReply, problem: PageProblem): FastifyReply;
  /** 403 "This form has expired": a missing or stale CSRF token. */
  expiredForm(reply: FastifyReply): FastifyReply;
  /** A redirect from the page flow (never cached, never leaking a referrer). */
  redirect(reply: FastifyReply, status: 302 | 303, location: string): FastifyReply;
}
