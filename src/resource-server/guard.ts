/**
 * The resource-server guard: one onRequest hook for every /api/v1 route, so it runs before the
 * body is parsed or validated (docs/api.md "Calling it": 401/403 before 400) and no route has its own token code.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteOptions,
} from 'fastify';
import type { AppContext } from '../context.js';
import { hashSecret } from '../crypto/tokens.js';
import { ApiError, OAuthError } from '../errors.js';
import { PATHS } from '../paths.js';
import type { AccessTokenWithAccount, BearerToken, MaybeNow } from '../storage/contract/bearer-tokens.js';
import { acceptToken, insufficientScope, invalidToken, readAuthorizationHeader } from './bearer.js';
import {
  inDpopScheme,
  isDpopAuthorization,
  judgeDpopRequest,
  readDpopAuthorization,
  refuseBoundAsBearer,
} from './dpop.js';
import { type Access, ANONYMOUS, type Principal } from './principal.js';

const USE_HEADER =
  'send the access token in the Authorization header ("Authorization: Bearer <token>"), never in the URL or body';

/**
 * Anonymous is never challenged (docs/decisions.md "What the customer's interface description fixes"; docs/decisions.md "The school API"): 403 without WWW-Authenticate. It still says
 * where to learn how to get a token, in the spirit of RFC 9728 §5: a `Link` to the protected
 * resource metadata with the registered relation `describedby` (RFC 8288 §2.1.1), and the same
 * URL as `resource_metadata` in the body — the name RFC 9728 §5.1 gives it in a challenge.
 */
export function anonymousRefused(issuer: string, scope: string): ApiError {
  const metadata = issuer + PATHS.protectedResourceMetadata;
  return new ApiError(
    'forbidden',
    `this operation has nothing public; send an access token with the scope "${scope}" as "Authorization: Bearer <token>" (resource_metadata names the authorization server; ${issuer}${PATHS.authMd} walks through it)`,
    403,
    { link: `<${metadata}>; rel="describedby"; type="application/json"` },
    { resource_metadata: metadata },
  );
}

/** Any route's query (the guard runs on every API route, whatever its schema). */
function hasQueryToken(request: FastifyRequest): boolean {
  const query: unknown = request.query;
  return typeof query === 'object' && query !== null && Object.hasOwn(query, 'access_token');
}

/**
 * Counts an API request against its rate limit: by the token's stored key when the token is
 * valid, else by the client IP; throws 429 over the limit (src/rate-limit/endpoint-limits.ts).
 */
export type ApiLimit = (request: FastifyRequest, tokenHash: string | undefined) => void;

const NO_LIMIT: ApiLimit = () => undefined;

/**
 * The request's credentials, judged as far as they can be without the database: ANONYMOUS (the
 * access rule admits it) or the stored key of the bearer token to look up; throws the wire error.
 */
function presented(
  ctx: Pick<AppContext, 'config'>,
  request: FastifyRequest,
  access: Access,
  limit: ApiLimit,
): Principal | string {
  const header = readAuthorizationHeader(request.headers.authorization);
  if (header.kind === 'token') return hashSecret(header.token);
  limit(request, undefined);
  // RFC 6750 §2.1: exactly `Bearer` SP token68; anything else is not judged as anonymous.
  if (header.kind === 'malformed') {
    throw invalidToken(ctx.config.issuer, 'the Authorization header must be "Bearer <access token>"');
  }
  if (!access.anonymous) throw anonymousRefused(ctx.config.issuer, access.scope);
  return ANONYMOUS;
}

/**
 * Judges the token row found by `tokenHash` (undefined: none) against the operation's access rule;
 * throws the wire error. The rate limit is counted once the token is judged, so a made-up token
 * (a key the caller chooses) counts against the IP, and before the operation runs.
 */
function judgeToken(
  ctx: Pick<AppContext, 'config' | 'now'>,
  request: FastifyRequest,
  access: Access,
  limit: ApiLimit,
  tokenHash: string,
  row: AccessTokenWithAccount | undefined,
): Principal {
  let token: BearerToken;
  try {
    token = acceptToken(ctx, row);
    // RFC 9449 §7.2: a DPoP-bound token is not a bearer token.
    refuseBoundAsBearer(ctx.config.issuer, token);
  } catch (error) {
    limit(request, undefined);
    throw error;
  }
  limit(request, tokenHash);
  return personOf(ctx, token, access);
}

// Tokens carry a handful of distinct scope strings; a new Set per request was 2% of a protected GET.
const scopeSets = new Map<string, ReadonlySet<string>>();

function scopeSet(scopes: string): ReadonlySet<string> {
  let set = scopeSets.get(scopes);
  if (!set) {
    if (scopeSets.size >= 1000) scopeSets.clear();
    set = new Set(scopes.split(' '));
    scopeSets.set(scopes, set);
  }
  return set;
}

function personOf(ctx: Pick<AppContext, 'config'>, token: BearerToken, access: Access): Principal {
  const scopes = scopeSet(token.scopes);
  // docs/api.md "Calling it": a presented token is always judged, never downgraded to anonymous.
  if (!scopes.has(access.scope)) throw insufficientScope(ctx.config.issuer, access.scope);
  return { kind: 'person', accountId: token.account_id, clientId: token.client_id, scopes };
}

/** The guard of every route in `app`; `limit` counts the API rate limit (none when omitted). */
export function installGuard(app: FastifyInstance, ctx: AppContext, limit: ApiLimit = NO_LIMIT): void {
  // Fastify decorators take no shared objects; the hook below sets it on every guarded request.
  app.decorateRequest<Principal | null>('principal', null);
  app.decorateRequest('tokenAccount', null);
  app.addHook('onRoute', (route) => {
    // Fail closed at start: a route under the guard without an access rule is a bug.
    if (!route.config?.access) throw new Error(`route ${route.method} ${route.url} has no access rule`);
    if (takesBody(route)) route.preValidation = [refuseBodyToken, ...[route.preValidation ?? []].flat()];
  });
  // Callback style, and no promise at all when the token is read now: every API request.
  app.addHook('onRequest', (request, _reply, done) => {
    const access = request.routeOptions.config.access;
    if (!access) {
      done();
      return;
    }
    // RFC 9449 §7: `Authorization: DPoP` is judged with its proof (resource-server/dpop.ts).
    if (isDpopAuthorization(request.headers.authorization)) {
      dpopPrincipal(ctx, request, access, limit).then((principal) => {
        request.principal = principal;
        done();
      }, done);
      return;
    }
    let principal: Principal | undefined;
    let pending: Promise<AccessTokenWithAccount | undefined> | undefined;
    let tokenHash = '';
    try {
      // RFC 6750 §2.3 allows a URI query token, but it leaks into logs and history: refused.
      if (hasQueryToken(request)) {
        limit(request, undefined);
        throw new OAuthError('invalid_request', USE_HEADER);
      }
      const credentials = presented(ctx, request, access, limit);
      if (typeof credentials !== 'string') {
        principal = credentials;
      } else {
        tokenHash = credentials;
        // The one read of a protected request: no promise when the store could read it now.
        const found = lookUp(ctx, request, access, limit, tokenHash);
        if (found instanceof Promise) pending = found;
        else principal = judgeToken(ctx, request, access, limit, tokenHash, found);
      }
    } catch (error) {
      done(error as Error);
      return;
    }
    if (principal) {
      request.principal = principal;
      done();
      return;
    }
    // (Never without one here: a token was presented and not judged now.)
    (pending ?? Promise.resolve(undefined))
      .then((row) => {
        request.principal = judgeToken(ctx, request, access, limit, tokenHash, row);
      })
      .then(() => done(), done);
  });
}

/** A DPoP request's principal: the proof and token judged, then the scope as for Bearer. */
async function dpopPrincipal(
  ctx: AppContext,
  request: FastifyRequest,
  access: Access,
  limit: ApiLimit,
): Promise<Principal> {
  let token: BearerToken;
  let tokenHash: string;
  try {
    if (hasQueryToken(request)) throw new OAuthError('invalid_request', USE_HEADER);
    const presented = readDpopAuthorization(ctx.config.issuer, request.headers.authorization!);
    tokenHash = presented.tokenHash;
    // The same one read as Bearer's: with the account's memberships where the route needs them.
    token = await judgeDpopRequest(ctx, request, presented, async (hash) =>
      readToken(ctx, request, access, hash),
    );
  } catch (error) {
    limit(request, undefined);
    throw error;
  }
  limit(request, tokenHash);
  try {
    return personOf(ctx, token, access);
  } catch (error) {
    throw inDpopScheme(error);
  }
}

/**
 * The bearer lookup: a route that answers from the account (`access.withAccount`) asks for its
 * memberships with the token, which the store reads in the same statement where that saves a
 * round trip (the rows go on `request.tokenAccount`).
 */
function readToken(
  ctx: Pick<AppContext, 'store'>,
  request: FastifyRequest,
  access: Access,
  tokenHash: string,
): MaybeNow<AccessTokenWithAccount | undefined> {
  if (!access.withAccount) return ctx.store.bearerTokens.find(tokenHash);
  const found = ctx.store.bearerTokens.findWithMemberships(tokenHash);
  const keep = (read: Awaited<typeof found>) => {
    if (read.memberships) request.tokenAccount = read.memberships;
    return read.token;
  };
  return found instanceof Promise ? found.then(keep) : keep(found);
}

/** readToken for a Bearer request: a database fault counts against the IP, as an unknown token does. */
function lookUp(
  ctx: Pick<AppContext, 'store'>,
  request: FastifyRequest,
  access: Access,
  limit: ApiLimit,
  tokenHash: string,
): MaybeNow<AccessTokenWithAccount | undefined> {
  const failed = (error: unknown): never => {
    limit(request, undefined);
    throw error;
  };
  try {
    const found = readToken(ctx, request, access, tokenHash);
    return found instanceof Promise ? found.catch(failed) : found;
  } catch (error) {
    // A fault reading now: counted here, thrown to the hook's catch.
    return failed(error);
  }
}

/** RFC 6750 §2.2 form-body tokens are refused for the same reason as query tokens. */
function refuseBodyToken(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const body: unknown = request.body;
  if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'access_token')) {
    done(new OAuthError('invalid_request', USE_HEADER));
    return;
  }
  done();
}

/** Fastify never parses a GET or HEAD body: only routes that take other methods run the check. */
function takesBody(route: RouteOptions): boolean {
  return [route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD');
}
