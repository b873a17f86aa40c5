/**
 * GET and POST /oauth/authorize (RFC 6749 §4.1.1, OIDC Core §3.1.2; docs/decisions.md "Authorization endpoint"). A short pipeline:
 * read parameters → check client and redirect URI (else an error page, never a redirect) →
 * validate the rest (else an error redirect) → the person's step (sign in, consent) → code.
 * A POST carrying `step` answers one of the pages; any other POST is a form-encoded request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../../audit/audit.js';
import type { AppContext } from '../../context.js';
import type { OAuthErrorCode } from '../../errors.js';
import { logServerFault, unavailableError } from '../../http/error-handler.js';
import { formBody } from '../../http/form-fields.js';
import { countOAuthError } from '../../ops/metrics.js';
import { PATHS } from '../../paths.js';
import type { EndpointLimits } from '../../rate-limit/endpoint-limits.js';
import { CSRF_FIELD, checkCsrfToken, checkSigninCsrf } from '../../sessions/csrf.js';
import { type ActiveSession, endSession, loadSession, startSession } from '../../sessions/sessions.js';
import { signInWithForm } from '../../sessions/sign-in.js';
import { redirectUrisOf } from '../../storage/client-rows.js';
import { whyUnavailable } from '../../storage/unavailable.js';
import { issueAuthorizationCode } from '../authorization-codes.js';
import { metadataTarget } from '../client-id-metadata/authorize-target.js';
import { isClientIdUrl } from '../client-id-metadata/client-id-url.js';
import type { MetadataDocuments } from '../client-id-metadata/documents.js';
import { metadataDocumentsFor } from '../client-id-metadata/wiring.js';
import { inCatalogueOrder, splitScope } from '../scopes.js';
import { alreadyAllowed, DECISIONS, GRANT_FIELD, readConsentChoice } from './consent-choice.js';
import { consentRequiredDescription, judgeConsent } from './consent-policy.js';
import { readParams } from './params.js';
import { clientRedirect } from './response.js';
import { AUTHORIZE_SCHEMA } from './schema.js';
import { checkTarget, isRequestError, type Target, validateRequest } from './validate.js';
import type { AuthorizeView, Flow } from './view.js';

interface Exchange {
  readonly ctx: AppContext;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /** 302 answers a GET; 303 makes the browser follow a POST with a GET. */
  readonly status: 302 | 303;
  readonly documents: MetadataDocuments;
  readonly view: AuthorizeView;
}

function redirectToClient(x: Exchange, flow: Flow, params: Record<string, string | undefined>): FastifyReply {
  const location = clientRedirect(
    flow.redirectUri,
    { ...params, state: flow.request.state },
    x.ctx.config.issuer,
  );
  return x.view.redirect(x.reply, x.status, location);
}

function redirectError(x: Exchange, flow: Flow, error: OAuthErrorCode, description: string): FastifyReply {
  countOAuthError(error);
  return redirectToClient(x, flow, { error, error_description: description });
}

/** A client known from its metadata document gets (or updates) its row before anything refers to it. */
async function saveClient(x: Exchange, flow: Flow): Promise<void> {
  if (flow.metadata?.save) await x.ctx.store.clients.saveMetadataClient(flow.metadata.save);
}

/** Issues the code for `scopes`: what the person allowed of the request (consent-choice.ts). */
async function issueCode(
  x: Exchange,
  flow: Flow,
  session: ActiveSession,
  scopes: readonly string[],
): Promise<FastifyReply> {
  await saveClient(x, flow);
  const { code, grantId } = await issueAuthorizationCode(x.ctx, {
    clientId: flow.client.id,
    accountId: session.account.id,
    redirectUri: flow.redirectUri,
    codeChallenge: flow.request.codeChallenge,
    scopes,
    resource: flow.request.resource,
    nonce: flow.request.nonce,
    authTime: session.authTime,
    dpopJkt: flow.request.dpopJkt,
  });
  await recordAudit(
    x.ctx.store,
    {
      kind: 'code.issued',
      accountId: session.account.id,
      clientId: flow.client.id,
      ip: x.request.ip,
      detail: { grant_id: grantId },
    },
    x.ctx.now(),
  );
  return redirectToClient(x, flow, { code });
}

/** Whether the person must enter their password now (OIDC Core §3.1.2.1 prompt=login, max_age). */
function mustSignIn(x: Exchange, flow: Flow, session: ActiveSession | undefined): session is undefined {
  if (!session) return true;
  if (flow.request.prompt.has('login')) return true;
  const { maxAge } = flow.request;
  return maxAge !== undefined && x.ctx.now() - session.authTime > maxAge;
}

/**
 * After sign-in is settled: remembered consent goes straight through for a confidential client
 * only; a public client's request is always confirmed on the consent page (consent-policy.ts).
 */
async function afterSignIn(x: Exchange, flow: Flow, session: ActiveSession): Promise<FastifyReply> {
  const consent = await x.ctx.store.consents.find(session.account.id, flow.client.id);
  const judgement = judgeConsent(flow.client, consent, flow.request);
  if (judgement.silent) return issueCode(x, flow, session, flow.request.scopes);
  if (flow.request.prompt.has('none')) {
    return redirectError(x, flow, 'consent_required', consentRequiredDescription(judgement));
  }
  return x.view.consent(x.ctx, x.reply, flow, session, {
    alreadyAllowed: alreadyAllowed(flow.request.scopes, consent?.scopes),
    allowedBefore: judgement.remembered ? consent?.updated_at : undefined,
  });
}

async function startFlow(x: Exchange, flow: Flow): Promise<FastifyReply> {
  const session = await loadSession(x.ctx, x.request);
  if (mustSignIn(x, flow, session)) {
    if (flow.request.prompt.has('none')) {
      return redirectError(
        x,
        flow,
        'login_required',
        'the person must sign in; send the request without prompt=none',
      );
    }
    return x.view.signIn(x.ctx, x.request, x.reply, flow);
  }
  return afterSignIn(x, flow, session);
}

async function signInStep(x: Exchange, flow: Flow, body: Record<string, unknown>): Promise<FastifyReply> {
  if (!checkSigninCsrf(x.ctx, x.request, body[CSRF_FIELD])) return x.view.expiredForm(x.reply);
  const outcome = await signInWithForm(x.ctx, x.request, x.reply, {
    email: body.email,
    password: body.password,
  });
  if (!('account' in outcome)) {
    const email = typeof body.email === 'string' ? body.email : undefined;
    if (outcome.retryAfter) x.reply.header('retry-after', String(outcome.retryAfter));
    return x.view.signIn(x.ctx, x.request, x.reply, flow, {
      email,
      message: outcome.message,
      status: outcome.status,
    });
  }
  const session = await startSession(x.ctx, x.request, x.reply, outcome.account);
  return afterSignIn(x, flow, session);
}

async function consentStep(x: Exchange, flow: Flow, body: Record<string, unknown>): Promise<FastifyReply> {
  const session = await loadSession(x.ctx, x.request);
  // The session ended while the page was open: sign in again, the request is kept.
  if (!session) return x.view.signIn(x.ctx, x.request, x.reply, flow);
  if (!checkCsrfToken(session.csrfSecret, 'authorize', body[CSRF_FIELD])) return x.view.expiredForm(x.reply);
  const accountId = session.account.id;
  const now = x.ctx.now();
  if (body.decision !== DECISIONS.allow && body.decision !== DECISIONS.readOnly) {
    await recordAudit(
      x.ctx.store,
      { kind: 'consent.denied', accountId, clientId: flow.client.id, ip: x.request.ip },
      now,
    );
    return redirectError(x, flow, 'access_denied', 'the person did not allow access');
  }
  const previous = await x.ctx.store.consents.find(accountId, flow.client.id);
  const already = alreadyAllowed(flow.request.scopes, previous?.scopes);
  const choice = readConsentChoice({
    requested: flow.request.scopes,
    already,
    submitted: body[GRANT_FIELD],
    readOnly: body.decision === DECISIONS.readOnly,
  });
  if ('forged' in choice) {
    return x.view.problem(x.reply, {
      title: 'Invalid request',
      message: `The form asked to allow ${JSON.stringify(choice.forged)}, which the app did not ask for, so nothing was allowed. Go back to the app and start again.`,
      code: 'invalid_request',
    });
  }
  if ('empty' in choice) {
    return x.view.consent(x.ctx, x.reply, flow, session, { alreadyAllowed: already, nothingChosen: true });
  }
  // Remembered consent holds only what the person allowed (docs/decisions.md "Remembered consent").
  const remembered = inCatalogueOrder([...splitScope(previous?.scopes ?? ''), ...choice.grant]);
  await saveClient(x, flow);
  await x.ctx.store.consents.save(accountId, flow.client.id, remembered.join(' '), now);
  await recordAudit(
    x.ctx.store,
    {
      kind: 'consent.granted',
      accountId,
      clientId: flow.client.id,
      ip: x.request.ip,
      detail: { scope: choice.grant.join(' ') },
    },
    now,
  );
  return issueCode(x, flow, session, choice.grant);
}

/** "Not you? Sign in as someone else": ends this session, then asks for a sign-in, same request. */
async function switchStep(x: Exchange, flow: Flow, body: Record<string, unknown>): Promise<FastifyReply> {
  const session = await loadSession(x.ctx, x.request);
  if (session) {
    if (!checkCsrfToken(session.csrfSecret, 'signout', body[CSRF_FIELD])) {
      return x.view.expiredForm(x.reply);
    }
    await endSession(x.ctx, x.request, x.reply);
    await recordAudit(
      x.ctx.store,
      { kind: 'signout', accountId: session.account.id, ip: x.request.ip },
      x.ctx.now(),
    );
  }
  return x.view.signIn(x.ctx, x.request, x.reply, flow);
}

/** The client and the verified redirect URI: from a registration row, or from a metadata document. */
async function findTarget(x: Exchange, params: ReturnType<typeof readParams>): Promise<Target> {
  const clientId = params.values.client_id;
  if (clientId === undefined || params.repeated.includes('client_id'))
    return checkTarget(params, undefined, []);
  if (isClientIdUrl(clientId)) return metadataTarget(x.ctx, x.documents, params, x.request.ip);
  const client = await x.ctx.store.clients.find(clientId);
  return checkTarget(params, client, client ? redirectUrisOf(client) : []);
}

async function authorize(x: Exchange, source: unknown): Promise<FastifyReply> {
  const params = readParams(source);
  const target = await findTarget(x, params);
  if ('problem' in target) return x.view.problem(x.reply, target.problem);
  const request = validateRequest(params, x.ctx.config.issuer);
  const partial = {
    params,
    client: target.client,
    redirectUri: target.redirectUri,
    metadata: target.metadata,
  };
  if (isRequestError(request)) {
    countOAuthError(request.error);
    const state = params.values.state;
    const location = clientRedirect(
      target.redirectUri,
      { error: request.error, error_description: request.description, state },
      x.ctx.config.issuer,
    );
    return x.view.redirect(x.reply, x.status, location);
  }
  const flow: Flow = { ...partial, request };
  return proceed(x, flow).catch((error: unknown) => unavailableRedirect(x, flow, error));
}

function proceed(x: Exchange, flow: Flow): Promise<FastifyReply> {
  if (x.request.method !== 'POST') return startFlow(x, flow);
  const body = formBody(x.request);
  if (body.step === 'signin') return signInStep(x, flow, body);
  if (body.step === 'consent') return consentStep(x, flow, body);
  if (body.step === 'switch') return switchStep(x, flow, body);
  return startFlow(x, flow);
}

/**
 * RFC 6749 §4.1.2.1: once client and redirect URI are verified, a database fault is the client's
 * to retry — `temporarily_unavailable` at its redirect URI. (Before, the pages' 503 page answers.)
 */
function unavailableRedirect(x: Exchange, flow: Flow, error: unknown): FastifyReply {
  const reason = whyUnavailable(error);
  if (!reason) throw error;
  logServerFault(x.request, error, 'authorization failed');
  return redirectError(x, flow, 'temporarily_unavailable', unavailableError(reason).description);
}

export async function authorizeRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  limits: Pick<EndpointLimits, 'clientMetadata'>,
  view: AuthorizeView,
): Promise<void> {
  const documents = metadataDocumentsFor(ctx, limits);
  app.get(PATHS.authorization, AUTHORIZE_SCHEMA.get, (request, reply) =>
    authorize({ ctx, request, reply, status: 302, documents, view }, request.query),
  );
  app.post(PATHS.authorization, AUTHORIZE_SCHEMA.post, (request, reply) =>
    authorize({ ctx, request, reply, status: 303, documents, view }, request.body),
  );
}
