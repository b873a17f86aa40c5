/**
 * The person's side of the device authorization grant (RFC 8628 §3.3): verification_uri asks for
 * the user code (Code, Continue; case and separators forgiven), sign-in as everywhere, then a
 * consent page that shows the code beside the app's name and warns against remote phishing
 * (§5.4), with Allow and Deny; then a page saying the device may continue. The consent is
 * always asked (never remembered silently), and verification_uri_complete only fills the code in.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.js';
import type { AppContext } from '../context.js';
import { randomBase64url } from '../crypto/random.js';
import { field, formBody, formQuery } from '../http/form-fields.js';
import { displayUserCode, normaliseUserCode, userCodeHash } from '../oauth/device/user-code.js';
import { countDeviceAuthorization } from '../ops/metrics.js';
import { PATHS } from '../paths.js';
import type { EndpointLimits } from '../rate-limit/endpoint-limits.js';
import { cookieNames, cookieOptions } from '../sessions/cookies.js';
import { CSRF_FIELD, checkCsrfToken, csrfToken } from '../sessions/csrf.js';
import { loadSession } from '../sessions/sessions.js';
import { pageRoute } from './form.js';
import { html } from './html.js';
import { layout } from './layout.js';
import { sendPage, sendRedirect } from './respond.js';
import { expiredFormPage, signInUrl } from './sign-in.routes.js';

const DECISION_PATH = `${PATHS.device}/decision`;

function codePage(code: string, error?: string) {
  return layout({
    title: 'Connect a device',
    body: html`<h1>Connect a device</h1>
<p>Enter the code your device shows.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="${PATHS.device}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" value="${code}" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
<button type="submit">Continue</button>
</form>`,
  });
}

/** The verification cookie lives as long as a user code can (a browser keeps its count in between). */
const VERIFY_COOKIE_TTL = 24 * 3600;
const VERIFY_VALUE = /^[A-Za-z0-9_-]{22}$/;

/**
 * This browser's name for counting wrong user codes (RFC 8628 §5.2): its verification cookie, set
 * when absent. A browser that drops the cookie gets a new count each time, and is held by the
 * per-address limit instead.
 */
function verifyingBrowser(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): string {
  const name = cookieNames(ctx.config).verify;
  const value = request.cookies[name];
  if (value && VERIFY_VALUE.test(value)) return value;
  const fresh = randomBase64url(16);
  reply.setCookie(name, fresh, cookieOptions(ctx.config, VERIFY_COOKIE_TTL));
  return fresh;
}

function waitText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return seconds < 60 ? `${seconds} seconds` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

const DEVICE_GET = pageRoute({
  summary: 'RFC 8628 verification_uri: the page where a person types a device’s user code',
  page: 'The form: Code, Continue',
  query: { user_code: 'Fills the code in (verification_uri_complete); the person still confirms it' },
});
const DEVICE_POST = pageRoute({
  summary: 'The Code form posts here',
  page: 'Signed in: the consent page with the code, the app’s name, Allow and Deny; else the form again with the reason (429 with Retry-After after too many wrong codes from this browser or address)',
  redirect: 'Not signed in: to sign-in, and back here with the code filled in',
  form: { user_code: 'The user code, e.g. BCDF-GHJK' },
});
const DECISION_POST = pageRoute({
  summary: 'Allow or Deny on the device consent page posts here',
  page: 'A page saying the device may continue (or was refused)',
  form: { user_code: 'The user code', decision: '`allow` or `deny`', csrf_token: 'The form’s CSRF token' },
});

export async function deviceRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  limits: EndpointLimits,
): Promise<void> {
  app.get(PATHS.device, DEVICE_GET, (request, reply) => {
    verifyingBrowser(ctx, request, reply);
    const typed = field(formQuery(request), 'user_code') ?? '';
    return sendPage(reply, 200, codePage(typed.slice(0, 64)));
  });

  app.post(PATHS.device, DEVICE_POST, async (request, reply) => {
    const typed = (field(formBody(request), 'user_code') ?? '').slice(0, 64);
    const code = normaliseUserCode(typed);
    // Counted before the look-up (so concurrent guesses cannot slip past together), refunded when
    // the code is right: only wrong codes count (RFC 8628 §5.1, docs/security.md).
    const count = limits.userCode(request.ip, verifyingBrowser(ctx, request, reply));
    if (count.retryAfter !== undefined) {
      reply.header('retry-after', String(count.retryAfter));
      return sendPage(
        reply,
        429,
        codePage(
          typed,
          `Too many wrong codes from this browser or network. Wait ${waitText(count.retryAfter)}, then try again.`,
        ),
      );
    }
    const found =
      code && (await ctx.store.deviceAuthorizations.findPendingByUserCode(userCodeHash(code), ctx.now()));
    if (found) count.refund();
    if (!code || !found) {
      return sendPage(
        reply,
        400,
        codePage(
          typed,
          'This code is not known, or it has expired or been used. Check the code your device shows, or start again on the device.',
        ),
      );
    }
    const session = await loadSession(ctx, request);
    if (!session) {
      return sendRedirect(reply, 303, signInUrl(`${PATHS.device}?user_code=${displayUserCode(code)}`));
    }
    const client = await ctx.store.clients.find(found.client_id);
    const shown = displayUserCode(code);
    return sendPage(
      reply,
      200,
      layout({
        title: 'Allow a device?',
        signedInAs: session.account.email,
        body: html`<h1>Allow <strong>${client?.name ?? found.client_id}</strong> on a device?</h1>
<p class="user-code">Code: <strong>${shown}</strong></p>
<p class="warning">Only continue if you started this on your own device and the code matches the code it shows. If someone sent you this code or link, choose Deny.</p>
<p>It asks for: ${found.scopes}</p>
<form method="post" action="${DECISION_PATH}">
<input type="hidden" name="user_code" value="${shown}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken(session.csrfSecret, 'device')}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
      }),
    );
  });

  app.post(DECISION_PATH, DECISION_POST, async (request, reply) => {
    const body = formBody(request);
    const session = await loadSession(ctx, request);
    if (!session || !checkCsrfToken(session.csrfSecret, 'device', body[CSRF_FIELD])) {
      return sendPage(reply, 403, expiredFormPage(request.id));
    }
    const code = normaliseUserCode(field(body, 'user_code') ?? '');
    const allow = field(body, 'decision') === 'allow';
    const now = ctx.now();
    const store = ctx.store.deviceAuthorizations;
    const pending = code ? await store.findPendingByUserCode(userCodeHash(code), now) : undefined;
    const decided =
      code && pending
        ? allow
          ? await store.approve(
              userCodeHash(code),
              { accountId: session.account.id, scopes: pending.scopes, authTime: session.authTime },
              now,
            )
          : await store.deny(userCodeHash(code), session.account.id, now)
        : undefined;
    if (!decided) {
      return sendPage(
        reply,
        400,
        codePage('', 'This code has expired or was already used. Start again on the device.'),
      );
    }
    countDeviceAuthorization(allow ? 'approved' : 'denied');
    await recordAudit(
      ctx.store,
      {
        kind: allow ? 'consent.granted' : 'consent.denied',
        accountId: session.account.id,
        clientId: decided.client_id,
        ip: request.ip,
        detail: { grant_type: 'device_code', scopes: allow ? decided.scopes : '' },
      },
      now,
    );
    return sendPage(
      reply,
      200,
      layout({
        title: allow ? 'Device connected' : 'Device refused',
        signedInAs: session.account.email,
        body: allow
          ? html`<h1>Done</h1><p>You may continue on your device. You can close this page.</p>`
          : html`<h1>Refused</h1><p>The device was refused. You can close this page.</p>`,
      }),
    );
  });
}
