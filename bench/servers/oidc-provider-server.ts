/**
 * The peer: node-oidc-provider 9 configured like schoolauth — dynamic registration, PKCE S256
 * required, opaque access tokens, rotating refresh tokens, introspection, revocation, userinfo,
 * RS256 ID tokens (ES256 for a client that registers for them), accounts and every model in SQLite. Interactions complete themselves for the
 * bench account (sign-in, then a grant for the requested scopes), so after the first
 * authorization the session cookie makes /auth answer with a code directly, as schoolauth's
 * remembered consent does.
 *
 * Environment: PORT, DB_PATH. Run as a child of bench/run.ts.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider, { type Client } from 'oidc-provider';
import { openSqliteStore } from './sqlite-adapter.js';

export const BENCH_ACCOUNT = { id: 'acc_bench', email: 'bench@bench.test', name: 'Bench User' };

const port = Number(process.env.PORT ?? 3100);
const store = openSqliteStore(process.env.DB_PATH ?? ':memory:');
store.db
  .prepare('INSERT OR IGNORE INTO accounts (id, email, name, updated_at) VALUES (?, ?, ?, ?)')
  .run(BENCH_ACCOUNT.id, BENCH_ACCOUNT.email, BENCH_ACCOUNT.name, Math.floor(Date.now() / 1000));
const findAccountRow = store.db.prepare('SELECT id, email, name, updated_at FROM accounts WHERE id = ?');

type AccountRow = { id: string; email: string; name: string; updated_at: number };

const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
// A P-256 key as well: a client registered with id_token_signed_response_alg ES256 gets ES256
// ID tokens (the code-oidc-es256 scenario); RS256 stays the default.
const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  adapter: (model: string) => store.adapterFor(model),
  jwks: {
    keys: [
      { ...signingKey, kid: 'bench-1', alg: 'RS256', use: 'sig' },
      { ...ecKey, kid: 'bench-es256', alg: 'ES256', use: 'sig' },
    ],
  },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  claims: {
    openid: ['sub'],
    profile: ['name', 'preferred_username', 'locale', 'updated_at'],
    email: ['email', 'email_verified'],
  },
  async findAccount(_ctx: unknown, sub: string) {
    const row = findAccountRow.get(sub) as AccountRow | undefined;
    if (!row) return undefined;
    return {
      accountId: row.id,
      async claims() {
        return {
          sub: row.id,
          name: row.name,
          preferred_username: row.email,
          locale: 'en',
          updated_at: row.updated_at,
          email: row.email,
          email_verified: true,
        };
      },
    };
  },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true, issueRegistrationAccessToken: false },
    introspection: { enabled: true },
    revocation: { enabled: true },
    userinfo: { enabled: true },
  },
  pkce: { required: () => true },
  // Same rules as schoolauth: every client allowed the refresh grant gets a refresh token, and it
  // rotates on every use.
  issueRefreshToken: async (_ctx: unknown, client: Client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: () => true,
  ttl: {
    AuthorizationCode: 600,
    AccessToken: 3600,
    IdToken: 3600,
    RefreshToken: 2592000,
    Grant: 2592000,
    Interaction: 3600,
    Session: 86400,
  },
  interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
});

async function completeInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: BENCH_ACCOUNT.id } });
    return;
  }
  const grant = new provider.Grant({
    accountId: BENCH_ACCOUNT.id,
    clientId: String(details.params.client_id),
  });
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const handle = provider.callback();
createServer((req, res) => {
  if (req.url?.startsWith('/interaction/')) {
    completeInteraction(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
    return;
  }
  handle(req, res);
}).listen(port, '127.0.0.1');
