/**
 * The pages the authorization endpoint shows mid-flow (its AuthorizeView, oauth/authorize/view.ts).
 * Both carry the validated request as hidden fields; the POST that comes back is validated again from scratch, so nothing the
 * browser returns is trusted beyond what a fresh GET with those parameters would be.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { noteErrorCode } from '../logging.js';
import { isConfidential } from '../oauth/authorize/consent-policy.js';
import type { PageProblem } from '../oauth/authorize/validate.js';
import type { AuthorizeView, Flow, SignInFailure, Step } from '../oauth/authorize/view.js';
import { isSchoolScope } from '../oauth/scope-catalogue.js';
import { PATHS } from '../paths.js';
import { csrfToken, signinCsrfToken } from '../sessions/csrf.js';
import type { ActiveSession } from '../sessions/sessions.js';
import { membershipsOf } from '../storage/accounts.repository.js';
import { consentPage } from './consent.page.js';
import { errorPage } from './error.page.js';
import { sendPage, sendRedirect } from './respond.js';
import { groupScopes } from './scope-groups.js';
import { signInPage } from './sign-in.page.js';
import { expiredFormPage } from './sign-in.routes.js';

function hidden(flow: Flow, step: Step): Record<string, string> {
  return { ...(flow.params.values as Record<string, string>), step };
}

/** CSP form-action must also allow the redirect that follows the form post. */
const formTargets = (flow: Flow) => [new URL(flow.redirectUri).origin];

function showSignIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  flow: Flow,
  failure?: SignInFailure,
): FastifyReply {
  const page = signInPage({
    action: PATHS.authorization,
    csrfToken: signinCsrfToken(ctx, request, reply),
    hidden: hidden(flow, 'signin'),
    clientName: flow.metadata ? `${flow.client.name} (${flow.metadata.host})` : flow.client.name,
    // A metadata document the operator trusts is a registered integration (docs/decisions.md "Authorization endpoint" "The consent page says who vouches for the app").
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
async function showConsent(
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

function showProblem(reply: FastifyReply, problem: PageProblem): FastifyReply {
  noteErrorCode(reply, problem.code);
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

/** The pages of the authorization endpoint, handed to it by app.ts (oauth/authorize/view.ts). */
export const authorizeView: AuthorizeView = {
  signIn: showSignIn,
  consent: showConsent,
  problem: showProblem,
  expiredForm: (reply) => sendPage(reply, 403, expiredFormPage(reply.request.id)),
  redirect: sendRedirect,
};
