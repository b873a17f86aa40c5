/**
 * The stand-alone sign-in and sign-out (used by Connected apps; the authorization endpoint
 * signs in within its own flow so the request never leaves the server's checks).
 */
import type { FastifyInstance } from 'fastify';
import { recordAudit } from '../audit/audit.js';
import type { AppContext } from '../context.js';
import { field, formBody, formQuery } from '../http/form-fields.js';
import { PATHS } from '../paths.js';
import { CSRF_FIELD, checkCsrfToken, checkSigninCsrf, signinCsrfToken } from '../sessions/csrf.js';
import { endSession, loadSession, startSession } from '../sessions/sessions.js';
import { signInWithForm } from '../sessions/sign-in.js';
import { SIGNOUT_PATH } from './connected-apps.page.js';
import { errorPage } from './error.page.js';
import { pageRoute, safeReturnPath } from './form.js';
import { sendPage, sendRedirect } from './respond.js';
import { signInPage } from './sign-in.page.js';

export const SIGNIN_PATH = '/signin';

/** Where signing out ends: the sign-in page, saying so. */
export const SIGNED_OUT_URL = `${SIGNIN_PATH}?done=signed-out`;

export function signInUrl(returnTo: string): string {
  return `${SIGNIN_PATH}?${new URLSearchParams({ return_to: returnTo })}`;
}

export const expiredFormPage = (requestId: string) =>
  errorPage({
    title: 'This form has expired',
    message:
      'The page you sent was too old or did not come from this site. Go back, reload the page and try again.',
    requestId,
  });

const RETURN_TO = 'Same-origin path to go to after signing in (default: Connected apps)';

const SIGNIN_GET = pageRoute({
  summary: 'Sign-in page (for Connected apps; the authorization endpoint has its own step)',
  page: 'The sign-in form: Email, Password, Sign in',
  query: { return_to: RETURN_TO, done: '`signed-out` shows "You have signed out."' },
});

const SIGNIN_POST = pageRoute({
  summary: 'The sign-in form posts here',
  page: 'The sign-in form again, saying the email or password was wrong (429 when throttled)',
  redirect: 'Signed in: to `return_to`',
  form: { email: 'Email', password: 'Password', return_to: RETURN_TO, csrf_token: 'The form’s CSRF token' },
});

const SIGNOUT_POST = pageRoute({
  summary: 'The Sign out button posts here: ends the session',
  redirect: 'To the sign-in page, saying the person signed out',
  form: { csrf_token: 'The form’s CSRF token' },
});

export async function signInRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(SIGNIN_PATH, SIGNIN_GET, (request, reply) => {
    const query = formQuery(request);
    const returnTo = safeReturnPath(field(query, 'return_to'), PATHS.connectedApps);
    const csrfToken = signinCsrfToken(ctx, request, reply);
    const notice = query.done === 'signed-out' ? 'You have signed out.' : undefined;
    return sendPage(
      reply,
      200,
      signInPage({ action: SIGNIN_PATH, csrfToken, hidden: { return_to: returnTo }, notice }),
    );
  });

  app.post(SIGNIN_PATH, SIGNIN_POST, async (request, reply) => {
    const body = formBody(request);
    if (!checkSigninCsrf(ctx, request, body[CSRF_FIELD]))
      return sendPage(reply, 403, expiredFormPage(request.id));
    const returnTo = safeReturnPath(field(body, 'return_to'), PATHS.connectedApps);
    const outcome = await signInWithForm(ctx, request, reply, { email: body.email, password: body.password });
    if (!('account' in outcome)) {
      const csrfToken = signinCsrfToken(ctx, request, reply);
      const page = signInPage({
        action: SIGNIN_PATH,
        csrfToken,
        hidden: { return_to: returnTo },
        email: field(body, 'email'),
        error: outcome.message,
      });
      if (outcome.retryAfter) reply.header('retry-after', String(outcome.retryAfter));
      return sendPage(reply, outcome.status, page);
    }
    await startSession(ctx, request, reply, outcome.account);
    return sendRedirect(reply, 303, returnTo);
  });

  app.post(SIGNOUT_PATH, SIGNOUT_POST, async (request, reply) => {
    const session = await loadSession(ctx, request);
    if (session) {
      if (!checkCsrfToken(session.csrfSecret, 'signout', formBody(request)[CSRF_FIELD])) {
        return sendPage(reply, 403, expiredFormPage(request.id));
      }
      await endSession(ctx, request, reply);
      await recordAudit(
        ctx.store,
        { kind: 'signout', accountId: session.account.id, ip: request.ip },
        ctx.now(),
      );
    }
    return sendRedirect(reply, 303, SIGNED_OUT_URL);
  });
}
