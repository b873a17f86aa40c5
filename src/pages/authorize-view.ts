/**
 * The pages the authorization endpoint shows mid-flow (its AuthorizeView, oauth/authorize/view.ts).
 * Both carry the validated request as hidden fields; the POST that comes back is validated again from scratch, so nothing the
 * browser returns is trusted beyond what a fresh GET with those parameters would be.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { noteErrorCode } from '../http/logging.js';
import {
  ALWAYS_GRANTED,
  DECISIONS,
  GRANT_FIELD,
  mixesReadAndWrite,
} from '../oauth/authorize/consent-choice.js';
import { isConfidential } from '../oauth/authorize/consent-policy.js';
import type { PageProblem } from '../oauth/authorize/validate.js';
import type { AuthorizeView, ConsentShown, Flow, SignInFailure, Step } from '../oauth/authorize/view.js';
import { isSchoolScope } from '../oauth/scope-catalogue.js';
import { PATHS } from '../paths.js';
import { csrfToken, signinCsrfToken } from '../sessions/csrf.js';
import type { ActiveSession } from '../sessions/sessions.js';
import { appFacts } from './app-facts.js';
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
 * The consent page: a tick box for each requested scope the person has not allowed this app
 * before, those allowed before listed apart (oauth/authorize/consent-choice.ts).
 */
async function showConsent(
  ctx: AppContext,
  reply: FastifyReply,
  flow: Flow,
  session: ActiveSession,
  shown: ConsentShown,
): Promise<FastifyReply> {
  const schoolBound = flow.request.scopes.some(isSchoolScope);
  const before = new Set(shown.alreadyAllowed);
  const asked = flow.request.scopes.filter((s) => !before.has(s));
  const page = consentPage({
    action: PATHS.authorization,
    csrfToken: csrfToken(session.csrfSecret, 'authorize'),
    hidden: hidden(flow, 'consent'),
    clientName: flow.client.name,
    clientKind: flow.client.kind,
    publicClient: !isConfidential(flow.client),
    allowedBefore: shown.allowedBefore,
    redirectUri: flow.redirectUri,
    scopes: groupScopes(asked),
    alreadyAllowed: groupScopes(shown.alreadyAllowed),
    grantField: GRANT_FIELD,
    alwaysGranted: ALWAYS_GRANTED,
    decisions: DECISIONS,
    readOnlyOffered: mixesReadAndWrite(asked),
    nothingChosen: shown.nothingChosen === true,
    accountEmail: session.account.email,
    identity: flow.metadata && {
      clientId: flow.client.id,
      host: flow.metadata.host,
      trusted: flow.metadata.trusted,
    },
    facts: appFacts(flow.client, flow.client.kind === 'integration' || flow.metadata?.trusted === true),
    schoolBound,
    schools: schoolBound ? await ctx.store.school.membershipsOf(session.account.id) : [],
    switchAccount: { csrfToken: csrfToken(session.csrfSecret, 'signout'), hidden: hidden(flow, 'switch') },
  });
  return sendPage(reply, shown.nothingChosen ? 400 : 200, page, { formTargets: formTargets(flow) });
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
