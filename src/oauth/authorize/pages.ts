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
import { csrfToken, signinCsrfToken } from '../../sessions/csrf.js';
import type { ActiveSession } from '../../sessions/sessions.js';
import { membershipsOf } from '../../storage/accounts.repository.js';
import type { Client } from '../../storage/schema.js';
import { PATHS } from '../discovery.js';
import { isSchoolScope } from '../scope-catalogue.js';
import type { RequestParams } from './params.js';
import type { AuthorizationRequest, PageProblem } from './validate.js';

/** The hidden `step` field says which page a POST answers (`switch`: "Not you?" on consent). */
export type Step = 'signin' | 'consent' | 'switch';

export interface Flow {
  readonly params: RequestParams;
  readonly client: Client;
  readonly redirectUri: string;
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
    clientName: flow.client.name,
    email: failure?.email,
    error: failure?.message,
  });
  return sendPage(reply, failure?.status ?? 200, page, { formTargets: formTargets(flow) });
}

export async function showConsent(
  ctx: AppContext,
  reply: FastifyReply,
  flow: Flow,
  session: ActiveSession,
): Promise<FastifyReply> {
  const schoolBound = flow.request.scopes.some(isSchoolScope);
  const page = consentPage({
    action: PATHS.authorization,
    csrfToken: csrfToken(session.csrfSecret, 'authorize'),
    hidden: hidden(flow, 'consent'),
    clientName: flow.client.name,
    clientKind: flow.client.kind,
    redirectUri: flow.redirectUri,
    scopes: groupScopes(flow.request.scopes),
    accountEmail: session.account.email,
    schoolBound,
    schools: schoolBound ? await membershipsOf(ctx.db, session.account.id) : [],
    switchAccount: { csrfToken: csrfToken(session.csrfSecret, 'signout'), hidden: hidden(flow, 'switch') },
  });
  return sendPage(reply, 200, page, { formTargets: formTargets(flow) });
}

export function showProblem(reply: FastifyReply, problem: PageProblem, status = 400): FastifyReply {
  return sendPage(
    reply,
    status,
    errorPage({
      title: problem.title,
      message: problem.message,
      code: problem.code,
      requestId: reply.request.id,
    }),
  );
}
