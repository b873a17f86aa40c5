/**
 * GET /auth.md: the seed §5 walkthrough — discover, register, PKCE, authorize, exchange, call,
 * refresh, revoke — as commands with the real issuer filled in. test/http/auth-md.test.ts runs
 * the `sh` blocks in order against a listening server, so this text cannot drift from the code.
 * Placeholders in <ANGLE_BRACKETS> are the values a person copies from the previous answer.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { PATHS } from '../oauth/discovery.js';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const SCOPE = 'openid profile account:read courses:read';

export function authMarkdown(issuer: string): string {
  return `# Connecting to ${issuer}

This server is an OAuth 2.0 / OpenID Connect authorization server and, on the same origin, the
protected school API (\`${issuer}/api/v1/…\`). A command-line tool, desktop app or local agent
gets a token in seven steps: discover, register, make a PKCE pair, send the person to authorize,
exchange the code, call the API, and later refresh and revoke. Every command below can be pasted
into a POSIX shell with \`curl\` and \`openssl\` (\`-w '\\n'\` only ends each answer with a newline). Where a command shows \`<SOMETHING>\`, paste
the value of that name from the previous answer.

The machine-readable API description is at ${issuer}${PATHS.openapi}.

## 1. Discover

\`\`\`sh
BASE_URL='${issuer}'
curl -s -w '\\n' "$BASE_URL${PATHS.protectedResourceMetadata}"
curl -s -w '\\n' "$BASE_URL${PATHS.authorizationServerMetadata}"
\`\`\`

The protected-resource metadata (RFC 9728) names the authorization server; its metadata
(RFC 8414) is the source of truth for every endpoint and the 38 scopes (\`scopes_supported\`).
A request to the API without a token is served as anonymous (public data only); a bad token or
a missing scope is answered with \`WWW-Authenticate: Bearer …, resource_metadata="…"\`, which
points back at this step.

## 2. Register your client

Self-service registration (RFC 7591) is open to clients that redirect to a loopback address.
A fixed HTTPS callback is refused with \`invalid_redirect_uri\`; such an integration is arranged
with the operator.

\`\`\`sh
REDIRECT_URI='${REDIRECT_URI}'
curl -s -w '\\n' -X POST "$BASE_URL${PATHS.registration}" \\
  -H 'Content-Type: application/json' \\
  -d '{"client_name":"My CLI","application_type":"native","redirect_uris":["${REDIRECT_URI}"],"token_endpoint_auth_method":"none"}'
\`\`\`

Keep the \`client_id\` of the answer:

\`\`\`sh
CLIENT_ID='<CLIENT_ID>'
\`\`\`

(\`token_endpoint_auth_method\` \`client_secret_post\` registers a confidential client instead; it
then sends its \`client_secret\` in the body of every token request.)

## 3. Make a PKCE verifier and its S256 challenge

\`\`\`sh
VERIFIER=$(openssl rand -base64 48 | tr -d '\\n=' | tr '+/' '-_')
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
STATE=$(openssl rand -hex 16)
\`\`\`

Only \`S256\` is accepted (RFC 7636).

## 4. Send the person to authorize

\`\`\`sh
echo "$BASE_URL${PATHS.authorization}?response_type=code&client_id=$CLIENT_ID&redirect_uri=$REDIRECT_URI&scope=${SCOPE.replaceAll(' ', '%20')}&code_challenge=$CHALLENGE&code_challenge_method=S256&state=$STATE"
\`\`\`

Open the printed URL in a browser. The person signs in and allows the listed scopes; the browser
is then sent to \`${REDIRECT_URI}?code=…&state=…&iss=…\`. Your program listens there (any free
port works: loopback redirect URIs may use another port than registered, RFC 8252 §7.3), checks
that \`state\` is yours and that \`iss\` is \`${issuer}\` (RFC 9207), and keeps the code:

\`\`\`sh
CODE='<CODE>'
\`\`\`

Request any of the scopes in \`scopes_supported\`; \`/openapi.json\` says which one each API
operation needs. The code is single-use and short-lived.

## 5. Exchange the code for tokens

\`\`\`sh
curl -s -w '\\n' -X POST "$BASE_URL${PATHS.token}" \\
  --data-urlencode grant_type=authorization_code \\
  --data-urlencode "code=$CODE" \\
  --data-urlencode "redirect_uri=$REDIRECT_URI" \\
  --data-urlencode "client_id=$CLIENT_ID" \\
  --data-urlencode "code_verifier=$VERIFIER" \\
  --data-urlencode "resource=$BASE_URL"
\`\`\`

The answer holds \`access_token\`, \`refresh_token\`, \`expires_in\`, \`scope\` and, with
\`openid\`, an \`id_token\`. \`resource\` (RFC 8707) binds the token to this API; it is optional.

\`\`\`sh
ACCESS_TOKEN='<ACCESS_TOKEN>'
REFRESH_TOKEN='<REFRESH_TOKEN>'
\`\`\`

## 6. Call the API

Send the token in the \`Authorization\` header (never in the URL):

\`\`\`sh
curl -s -w '\\n' "$BASE_URL/api/v1/account" -H "Authorization: Bearer $ACCESS_TOKEN"
curl -s -w '\\n' "$BASE_URL${PATHS.userinfo}" -H "Authorization: Bearer $ACCESS_TOKEN"
\`\`\`

\`/api/v1/account\` lists the person's schools; their content lives under
\`/api/v1/schools/{school}/…\`, for example \`/api/v1/schools/{school}/courses\` (scope
\`courses:read\`). Without a token the same path answers the public data only. A token without the
needed scope gets 403 \`insufficient_scope\` with \`scope="…"\` in \`WWW-Authenticate\`; an
expired or revoked one 401 \`invalid_token\`.

## 7. Refresh, then revoke

When the access token expires, the refresh token gets a new pair without asking the person again.
Refresh tokens rotate: use the new one next time.

\`\`\`sh
curl -s -w '\\n' -X POST "$BASE_URL${PATHS.token}" \\
  --data-urlencode grant_type=refresh_token \\
  --data-urlencode "refresh_token=$REFRESH_TOKEN" \\
  --data-urlencode "client_id=$CLIENT_ID"
\`\`\`

\`\`\`sh
ACCESS_TOKEN='<ACCESS_TOKEN>'
REFRESH_TOKEN='<REFRESH_TOKEN>'
\`\`\`

To sign the app out, revoke the refresh token (RFC 7009); this also ends the access tokens issued
with it. The endpoint answers 200 whether or not the token was still valid.

\`\`\`sh
curl -s -o /dev/null -w '%{http_code}\\n' -X POST "$BASE_URL${PATHS.revocation}" \\
  --data-urlencode "token=$REFRESH_TOKEN" \\
  --data-urlencode "client_id=$CLIENT_ID"
curl -s -w '\\n' "$BASE_URL/api/v1/account" -H "Authorization: Bearer $ACCESS_TOKEN"
\`\`\`

The last call now answers 401 \`invalid_token\`.

## Errors

Every error is JSON: \`{"error": "…", "error_description": "…"}\`. The description says what to
send instead. \`503 temporarily_unavailable\` and \`429 rate_limited\` carry \`Retry-After\`
(seconds): wait that long and send the same request again — a refresh sent again soon after its
answer was lost answers the same new pair. The person can see and revoke connected apps at
${issuer}${PATHS.connectedApps}.
`;
}

export async function authMdRoute(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const body = authMarkdown(ctx.config.issuer);
  app.get(PATHS.authMd, { schema: { hide: true } }, (_request, reply) =>
    reply.type('text/markdown; charset=utf-8').header('cache-control', 'public, max-age=300').send(body),
  );
}
