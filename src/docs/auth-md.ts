/**
 * GET /auth.md: the walkthrough of docs/decisions.md "What the customer's interface description fixes" — discover, register, PKCE, authorize (with a loopback
 * receiver to paste), exchange, call, introspect, refresh, revoke, and confidential clients — as
 * commands with the real issuer filled in. test/http/auth-md.test.ts runs the `sh` blocks in
 * order against a listening server, the receiver included, so this text cannot drift from the
 * code. Placeholders in <ANGLE_BRACKETS> are the values a person copies from the previous answer.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { authorizationServerMetadata } from '../oauth/discovery.js';
import { PATHS } from '../paths.js';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const SCOPE = 'openid profile account:read courses:read';

/**
 * A loopback redirect receiver (RFC 8252 §7.3) in a few lines of Node: it listens at the redirect
 * URI, then shows the authorization URL (on stderr: stdout is the code), checks `state` and `iss`
 * (RFC 9207), prints the code, tells the browser it is done, and exits. No single quotes inside:
 * it is pasted between single quotes.
 */
const RECEIVER = `const [redirect, state, issuer, open] = process.argv.slice(1);
const at = new URL(redirect);
const server = require("node:http").createServer((req, res) => {
  const url = new URL(req.url, at), q = url.searchParams;
  if (url.pathname !== at.pathname) return res.writeHead(404).end();
  const ok = q.has("code") && q.get("state") === state && q.get("iss") === issuer;
  res.writeHead(ok ? 200 : 400, { "content-type": "text/plain", connection: "close" });
  res.end(ok ? "Signed in: you can close this window." : "Not signed in: " + (q.get("error_description") || "state or iss did not match"));
  if (ok) console.log(q.get("code")); else console.error(q.get("error") || "state or iss did not match");
  process.exitCode = ok ? 0 : 1;
  server.close();
}).listen(at.port, at.hostname, () => console.error("Open this URL in a browser: " + open));`;

/**
 * A DPoP proof signer (RFC 9449 §4.2) in plain Node: the ES256 key made by openssl beside it,
 * the public JWK in the header, `ath` when a token is given, `nonce` when one is given; `jkt`
 * prints the key's RFC 7638 thumbprint (members in lexicographic order) for `dpop_jkt`. Written
 * to a file by a heredoc, so it may use any quote.
 */
const PROOF_SCRIPT = `const c = require("node:crypto"), fs = require("node:fs"), path = require("node:path");
const [method, url, token, nonce] = process.argv.slice(2);
const key = c.createPrivateKey(fs.readFileSync(path.join(__dirname, "dpop-key.pem")));
const { kty, crv, x, y } = c.createPublicKey(key).export({ format: "jwk" });
if (method === "jkt") return console.log(c.createHash("sha256").update(JSON.stringify({ crv, kty, x, y })).digest("base64url"));
const part = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
const claims = { jti: c.randomUUID(), htm: method, htu: url, iat: Math.floor(Date.now() / 1000) };
if (token) claims.ath = c.createHash("sha256").update(token).digest("base64url");
if (nonce) claims.nonce = nonce;
const input = part({ typ: "dpop+jwt", alg: "ES256", jwk: { kty, crv, x, y } }) + "." + part(claims);
const signature = c.sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
console.log(input + "." + signature.toString("base64url"));`;

/** The DPoP section (RFC 9449): a key, proofs, and the same steps with tokens bound to the key. */
function dpopSection(): string {
  return `## DPoP: tokens bound to a key (RFC 9449)

A copied bearer token works anywhere. With DPoP the client holds a key pair and signs a short
proof for every request; the tokens it gets are bound to that key (\`token_type: DPoP\`), so a
token file copied without the key is useless. The metadata lists the proof algorithms
(\`dpop_signing_alg_values_supported\`). Libraries do all of this for you (oauth4webapi's and
openid-client's \`DPoP\` handles); by hand it is one key and one small script.

Make an ES256 key, and a script that signs a proof with it for a method and URL (and, for API
calls, the access token):

\`\`\`sh dpop
DPOP_DIR=$(mktemp -d)
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$DPOP_DIR/dpop-key.pem"
cat > "$DPOP_DIR/proof.js" <<'EOF'
${PROOF_SCRIPT}
EOF
node "$DPOP_DIR/proof.js" POST "$BASE_URL${PATHS.token}"
\`\`\`

Authorize as in steps 3 and 4; to bind the code to the key too (RFC 9449 §10), add the key's
thumbprint to the authorization URL first, as \`AUTHORIZE_URL="$AUTHORIZE_URL&dpop_jkt=$(node "$DPOP_DIR/proof.js" jkt)"\`.
Then exchange the code with a fresh proof in the \`DPoP\` header:

\`\`\`sh dpop
curl -s -w '\\n' -X POST "$BASE_URL${PATHS.token}" \\
  -H "DPoP: $(node "$DPOP_DIR/proof.js" POST "$BASE_URL${PATHS.token}")" \\
  --data-urlencode grant_type=authorization_code \\
  --data-urlencode "code=$CODE" \\
  --data-urlencode "redirect_uri=$REDIRECT_URI" \\
  --data-urlencode "client_id=$CLIENT_ID" \\
  --data-urlencode "code_verifier=$VERIFIER"
\`\`\`

\`\`\`sh dpop
ACCESS_TOKEN='<ACCESS_TOKEN>'
REFRESH_TOKEN='<REFRESH_TOKEN>'
\`\`\`

The answer says \`"token_type":"DPoP"\`. Call the API with \`Authorization: DPoP\` and a proof
for that method and URL (without the query) carrying the token's hash (\`ath\`):

\`\`\`sh dpop
curl -s -w '\\n' "$BASE_URL/api/v1/account" -H "Authorization: DPoP $ACCESS_TOKEN" \\
  -H "DPoP: $(node "$DPOP_DIR/proof.js" GET "$BASE_URL/api/v1/account" "$ACCESS_TOKEN")"
\`\`\`

A public client's refresh token is bound to the key too: refreshing needs a proof of the same key.

\`\`\`sh dpop
curl -s -w '\\n' -X POST "$BASE_URL${PATHS.token}" \\
  -H "DPoP: $(node "$DPOP_DIR/proof.js" POST "$BASE_URL${PATHS.token}")" \\
  --data-urlencode grant_type=refresh_token \\
  --data-urlencode "refresh_token=$REFRESH_TOKEN" \\
  --data-urlencode "client_id=$CLIENT_ID"
\`\`\`

Every proof is used once (a new \`jti\` each time) and only within a minute of its \`iat\`. A
bad proof is answered \`invalid_dpop_proof\` with what was wrong; the API answers 401 with
\`WWW-Authenticate: DPoP algs="…", error="…"\`, also for a DPoP token sent as Bearer. If the
server answers \`use_dpop_nonce\`, make the proof again with the \`DPoP-Nonce\` header's value as
its fourth argument (the \`nonce\` claim). A client registered with
\`"dpop_bound_access_tokens": true\` is never given a Bearer token.
`;
}

/** Client authentication methods (RFC 6749 §2.3), as the metadata advertises them. */
function clientAuthentication(issuer: string): string {
  const methods = authorizationServerMetadata(issuer).token_endpoint_auth_methods_supported;
  const basic = methods.includes('client_secret_basic');
  return `## Confidential clients

A client that can keep a secret registers with \`"token_endpoint_auth_method": "client_secret_post"\`${basic ? ' or `"client_secret_basic"`' : ''};
the answer then also carries \`client_secret\`, shown only this once. Public clients (\`none\`,
above) need no secret: PKCE protects their codes.

\`\`\`sh confidential
curl -s -w '\\n' -X POST "$BASE_URL${PATHS.registration}" \\
  -H 'Content-Type: application/json' \\
  -d '{"client_name":"My confidential tool","application_type":"native","redirect_uris":["${REDIRECT_URI}"],"token_endpoint_auth_method":"client_secret_post"}'
\`\`\`

\`\`\`sh confidential
CLIENT_ID='<CLIENT_ID>'
CLIENT_SECRET='<CLIENT_SECRET>'
\`\`\`

It authorizes exactly as in steps 3 and 4, and then authenticates on every request to the token,
introspection and revocation endpoints in one of the two ways of RFC 6749 §2.3.1 — send the
secret with HTTP Basic or in the body, not both:

- \`client_secret_post\`: \`client_id\` and \`client_secret\` as form fields of the body.

  \`\`\`sh confidential
  curl -s -w '\\n' -X POST "$BASE_URL${PATHS.token}" \\
    --data-urlencode grant_type=authorization_code \\
    --data-urlencode "code=$CODE" \\
    --data-urlencode "redirect_uri=$REDIRECT_URI" \\
    --data-urlencode "code_verifier=$VERIFIER" \\
    --data-urlencode "client_id=$CLIENT_ID" \\
    --data-urlencode "client_secret=$CLIENT_SECRET"
  \`\`\`

  \`\`\`sh confidential
  REFRESH_TOKEN='<REFRESH_TOKEN>'
  \`\`\`

- \`client_secret_basic\`: \`Authorization: Basic\` with the form-urlencoded \`client_id\` and
  \`client_secret\` joined by \`:\` (this server's ids and secrets need no encoding, so curl's
  \`-u\` does it), and no \`client_secret\` in the body.

  \`\`\`sh confidential-basic
  curl -s -w '\\n' -X POST "$BASE_URL${PATHS.token}" -u "$CLIENT_ID:$CLIENT_SECRET" \\
    --data-urlencode grant_type=refresh_token \\
    --data-urlencode "refresh_token=$REFRESH_TOKEN"
  \`\`\`

This server accepts ${methods.map((m) => `\`${m}\``).join(', ')} (\`token_endpoint_auth_methods_supported\`
in the metadata, the same for introspection and revocation)${basic ? '' : '; `client_secret_basic` is not among them yet, so send the secret in the body'}.
A wrong, missing or unneeded secret is answered with 401 \`invalid_client\`.
`;
}

export function authMarkdown(issuer: string): string {
  return `# Connecting to ${issuer}

This server is an OAuth 2.0 / OpenID Connect authorization server and, on the same origin, the
protected school API (\`${issuer}/api/v1/…\`). A command-line tool, desktop app or local agent
gets a token in these steps: discover, register, make a PKCE pair, send the person to authorize
(a few lines of Node receive the answer), exchange the code, call the API, and later
introspect, refresh and revoke. Every command below can be pasted into a POSIX shell with
\`curl\`, \`openssl\` and \`node\` (\`-w '\\n'\` only ends each answer with a newline). Where a
command shows \`<SOMETHING>\`, paste the value of that name from the previous answer.

You need an account on this server to sign in with in step 4: a local server started with
\`npm start\` printed the demo owner's email and one-time password; otherwise ask its operator.
The machine-readable API description is at ${issuer}${PATHS.openapi}.

## 1. Discover

\`\`\`sh
BASE_URL='${issuer}'
curl -s -w '\\n' "$BASE_URL${PATHS.protectedResourceMetadata}"
curl -s -w '\\n' "$BASE_URL${PATHS.authorizationServerMetadata}"
\`\`\`

The protected-resource metadata (RFC 9728) names the authorization server; its metadata
(RFC 8414) is the source of truth for every endpoint and the 38 scopes (\`scopes_supported\`).
A request to the API without a token is served as anonymous (public data only); where there is
nothing public it answers 403 without a challenge, but with
\`Link: <…${PATHS.protectedResourceMetadata}>; rel="describedby"\` and \`resource_metadata\` in the
body. A bad token or a missing scope is answered with
\`WWW-Authenticate: Bearer …, resource_metadata="…"\`. Both point back at this step.

## 2. Register your client — or publish a metadata document

There are two ways in. **Dynamic registration** (RFC 7591), below, gives you a \`client_id\` for
this server. **A Client ID Metadata Document** (the way MCP clients such as Claude Code and VS Code
identify themselves) needs no registration at all: see "Or: a Client ID Metadata Document" at
the end of this step.

Self-service registration is open to clients that redirect to a loopback address.
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

The redirect URI may leave out the port (any port is accepted at step 4, RFC 8252 §7.3) and the
path: \`http://127.0.0.1:8765\` and \`http://127.0.0.1\` stand for the same URI with \`/\`
(RFC 3986 §6.2.3).

This is a public client (\`none\`): it has no secret. A client that can keep one registers as a
confidential client instead (see "Confidential clients" below).

### Or: a Client ID Metadata Document

The authorization server metadata says \`"client_id_metadata_document_supported": true\`
(draft-ietf-oauth-client-id-metadata-document). Publish a JSON document at an https URL of yours
and use that URL itself as \`client_id\` in steps 4, 5 and 7 — for example
\`CLIENT_ID='https://agent.example.com/oauth/client.json'\` serving:

\`\`\`json
{
  "client_id": "https://agent.example.com/oauth/client.json",
  "client_name": "My Agent",
  "redirect_uris": ["http://127.0.0.1/callback", "http://localhost/callback"],
  "token_endpoint_auth_method": "none"
}
\`\`\`

The server fetches it at the authorization request (and caches it as its \`Cache-Control\` says,
within 5 minutes to 24 hours by default). \`client_id\` must equal the URL exactly;
\`client_name\` and \`redirect_uris\` are required; the client is public (\`none\`: no
\`client_secret\`, no secret-based method). The URL is https, has a path and no fragment; the
answer is 200 JSON of at most 5 KB, without redirects, from a public address. Self-service stays
loopback-only: the \`redirect_uri\` you send must be listed and loopback — a listed
\`http://127.0.0.1/callback\` (port left out) accepts any port. An https redirect URI in the
document is usable only after the operator registers your URL as an integration. If anything is
wrong the person sees an error page naming the reason, and nothing is redirected.

## 3. Make a PKCE verifier and its S256 challenge

\`\`\`sh
VERIFIER=$(openssl rand -base64 48 | tr -d '\\n=' | tr '+/' '-_')
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
STATE=$(openssl rand -hex 16)
\`\`\`

Only \`S256\` is accepted (RFC 7636).

## 4. Send the person to authorize, and receive the code

This starts a receiver at \`$REDIRECT_URI\`, prints the authorization URL and waits for the
browser to come back. The Node lines are the whole receiver: they check that \`state\` is yours
and that \`iss\` is \`${issuer}\` (RFC 9207), and print the code.

\`\`\`sh
AUTHORIZE_URL="$BASE_URL${PATHS.authorization}?response_type=code&client_id=$CLIENT_ID&redirect_uri=$REDIRECT_URI&scope=${SCOPE.replaceAll(' ', '%20')}&code_challenge=$CHALLENGE&code_challenge_method=S256&state=$STATE"
CODE=$(node -e '
${RECEIVER}
' "$REDIRECT_URI" "$STATE" "$BASE_URL" "$AUTHORIZE_URL")
echo "Received an authorization code."
\`\`\`

Open the printed URL. The person signs in and allows the listed scopes; the browser is then sent
to \`${REDIRECT_URI}?code=…&state=…&iss=…\`, the receiver answers "Signed in: you can close
this window." and \`CODE\` holds the code. If the person presses Deny the receiver prints the
error (\`access_denied\`) and the command fails. Your own program does the same: listen on the
loopback address, any free port (loopback redirect URIs may use another port than registered,
RFC 8252 §7.3), and check \`state\` and \`iss\`.

Ask for the scopes your calls need: \`scopes_supported\` lists every scope that exists, not
what to ask for, and \`/openapi.json\` says which one each API operation needs. A request without
\`scope\` gets \`openid profile account:read\` (nothing that writes). When a call answers 403
\`insufficient_scope\`, authorize again asking for the scopes you hold plus the one named in
\`scope="…"\`. \`offline_access\` (OIDC Core §11) may be added and is ignored: every
authorization gets a refresh token, and the granted \`scope\` leaves it out. The code is
single-use and short-lived: go on to step 5 within a minute.

A public client (no \`client_secret\`, like this one) is shown the consent page on every
authorization, also when the person allowed it before, and \`prompt=none\` answers
\`consent_required\` (RFC 8252 §8.6: any program on the computer could otherwise claim its
\`client_id\` and loopback redirect). Keep access with the refresh token instead of authorizing
again.

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
\`openid\`, an \`id_token\` (verify it with the keys at \`jwks_uri\`; it is RS256 unless the
client registered \`"id_token_signed_response_alg"\` \`ES256\` or \`EdDSA\`, which are cheaper to
sign). \`resource\` (RFC 8707) binds the token to this API; it is optional.

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

## 7. Introspect a token

The introspection endpoint (RFC 7662, \`introspection_endpoint\` in the metadata) tells a client
whether one of its tokens is still active, and what it is bound to:

\`\`\`sh
curl -s -w '\\n' -X POST "$BASE_URL${PATHS.introspection}" \\
  --data-urlencode "token=$ACCESS_TOKEN" \\
  --data-urlencode "client_id=$CLIENT_ID"
\`\`\`

An active token answers \`"active": true\` with \`scope\`, \`client_id\`, \`sub\`, \`aud\` (the
\`resource\` it is bound to), \`iss\`, \`exp\`, \`iat\` and \`token_type\` (\`Bearer\` for an access
token, \`refresh_token\` for a refresh token). A client may introspect only the tokens issued to
it (a public client by its \`client_id\`, a confidential one with its secret); anything else —
unknown, expired, revoked, or another client's token — is \`{"active": false}\`.

## 8. Refresh, then revoke

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

${clientAuthentication(issuer)}
${dpopSection()}

## Without a browser: the device flow (RFC 8628)

A CLI in an SSH session or an agent on a server has no browser for the redirect. Register with
the device grant beside your loopback redirect URI, ask for a user code, show it, and poll:

\`\`\`sh device
CLIENT_ID=$(curl -s -X POST "$BASE_URL${PATHS.registration}" -H 'content-type: application/json' \\
  -d '{"client_name":"My headless CLI","redirect_uris":["${REDIRECT_URI}"],"grant_types":["authorization_code","refresh_token","urn:ietf:params:oauth:grant-type:device_code"]}' \\
  | node -pe 'JSON.parse(require("fs").readFileSync(0)).client_id')
DEVICE=$(curl -s -X POST "$BASE_URL${PATHS.deviceAuthorization}" \\
  --data-urlencode "client_id=$CLIENT_ID" --data-urlencode "scope=${SCOPE}")
echo "$DEVICE"   # user_code, verification_uri: tell the person to open it and type the code
DEVICE_CODE=$(echo "$DEVICE" | node -pe 'JSON.parse(require("fs").readFileSync(0)).device_code')
INTERVAL=5
while :; do
  sleep "$INTERVAL"
  ANSWER=$(curl -s -X POST "$BASE_URL${PATHS.token}" \\
    --data-urlencode "grant_type=urn:ietf:params:oauth:grant-type:device_code" \\
    --data-urlencode "device_code=$DEVICE_CODE" --data-urlencode "client_id=$CLIENT_ID")
  case "$ANSWER" in
    *authorization_pending*) ;;
    *slow_down*) INTERVAL=$((INTERVAL + 5)) ;;
    *) echo "$ANSWER"; break ;;
  esac
done
\`\`\`

The loop ends with the tokens (as in step 5) once the person chose Allow at ${issuer}${PATHS.device},
or with \`access_denied\` (Deny), \`expired_token\` (after \`expires_in\`: start again) or
\`invalid_grant\`.

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
  const schema = {
    tags: ['documentation'],
    summary: 'Walkthrough: discover, register, authorize with PKCE, exchange, call the API, refresh, revoke',
    response: {
      200: {
        description: 'Markdown, with this server’s base URL filled in',
        content: { 'text/markdown': { schema: { type: 'string' } } },
      },
    },
  };
  app.get(PATHS.authMd, { schema }, (_request, reply) =>
    reply.type('text/markdown; charset=utf-8').header('cache-control', 'public, max-age=300').send(body),
  );
}
