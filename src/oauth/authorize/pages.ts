/**
 * The pages the authorization endpoint shows mid-flow. Both carry the validated request as
 * hidden fields; the POST that comes back is validated again from scratch, so nothing the
 * browser returns is trusted beyond what a fresh GET with those parameters would be.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { consentPage } from '../../pages/consent.page.js';
import { errorPage } from '../../pages/error.page.js';
import { sendPage } from '../../pages/respond.js';
import { groupScopes } from '../../pages/scope-groups.js';
import { signInPage } from '../../pages/sign-in.page.js';
import { PATHS } from '../../paths.js';
import { csrfToken, signinCsrfToken } from '../../sessions/csrf.js';
import type { ActiveSession } from '../../sessions/sessions.js';
import { membershipsOf } from '../../storage/accounts.repository.js';
import type { Client } from '../../storage/schema.js';
import { isSchoolScope } from '../scope-catalogue.js';
import { isConfidential } from './consent-policy.js';
import type { RequestParams } from './params.js';
import type { AuthorizationRequest, MetadataIdentity, PageProblem } from './validate.js';

/** The hidden `step` field says which page a POST answers (`switch`: "Not you?" on consent). */
export type Step = 'signin' | 'consent' | 'switch';

export interface Flow {
  readonly params: RequestParams;
  readonly client: Client;
  readonly redirectUri: string;
  /** Set when the client is known from its metadata document (SPEC §5a). */
  readonly metadata: MetadataIdentity | undefined;
  readonly request: AuthorizationRequest;
}

function hidden(flow: Flow, step: Step): Record<string, string> {
  return { ...(flow.params.values as Record<string, string>), step };
}

/** CSP form-action must also allow the redirect that follows the form post. */
const formTargets = (flow: Flow) => [new URL(flow.redirectUri).origin];

export function showSignIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  flow: Flow,
  failure?: { email: string | undefined; message: string; status: 200 | 429 },
): FastifyReply {
  const page = signInPage({
    action: PATHS.authorization,
    csrfToken: signinCsrfToken(ctx, request, reply),
    hidden: hidden(flow, 'signin'),
    clientName: flow.metadata ? `${flow.client.name} (${flow.metadata.host})` : flow.client.name,
    // A metadata document the operator trusts is a registered integration (SPEC §5a).
    clientKind: flow.metadata?.trusted ? 'integration' : flow.client.kind,
    email: failure?.email,
    error: failure?.message,
  });
  return sendPage(reply, failure?.status ?? 200, page, { formTargets: formTargets(flow) });
}

/**
 * The consent page. `allowedBefore` (epoch seconds) is when the person last allowed this client
 * every requested scope, for a request that asks again anyway (public client, prompt=consent).
 */
export async function showConsent(
  ctx: AppContext,
  reply: FastifyReply,
  flow: Flow,
  session: ActiveSession,
  allowedBefore?: number,
): Promise<FastifyReply> {
  const schoolBound = flow.request.scopes.some(isSchoolScope);
  const page = consentPage({
    action: PATHS.authorization,
    csrfToken: csrfToken(session.csrfSecret, 'authorize'),
    hidden: hidden(flow, 'consent'),
    clientName: flow.client.name,
    clientKind: flow.client.kind,
    publicClient: !isConfidential(flow.client),
    allowedBefore,
    redirectUri: flow.redirectUri,
    scopes: groupScopes(flow.request.scopes),
    accountEmail: session.account.email,
    identity: flow.metadata && {
      clientId: flow.client.id,
      host: flow.metadata.host,
      trusted: flow.metadata.trusted,
    },
    schoolBound,
    schools: schoolBound ? await membershipsOf(ctx.db, session.account.id) : [],
    switchAccount: { csrfToken: csrfToken(session.csrfSecret, 'signout'), hidden: hidden(flow, 'switch') },
  });
  return sendPage(reply, 200, page, { formTargets: formTargets(flow) });
}

export function showProblem(reply: FastifyReply, problem: PageProblem): FastifyReply {
  if (problem.retryAfter !== undefined) reply.header('retry-after', String(problem.retryAfter));
  return sendPage(
    reply,
    problem.status ?? 400,
    errorPage({
      title: problem.title,
      message: problem.message,
      code: problem.code,
      requestId: reply.request.id,
    }),
  );
}
