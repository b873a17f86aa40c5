/**
 * Runs every flow a person, an agent and an operator go through, against a listening server,
 * and collects every secret that was handed out on the way: passwords, client secrets, codes,
 * access, refresh and ID tokens, session cookies, CSRF tokens. The secrets suites then look for
 * them where they must never be (tables, logs).
 */
import { authorizeViaPages, Browser, pkcePair } from '../helpers/flow.js';

export interface IssuedSecrets {
  readonly values: Set<string>;
}

const REDIRECT = 'http://127.0.0.1:8765/callback';

async function call(
  url: string,
  init: {
    form?: Record<string, string>;
    json?: unknown;
    bearer?: string;
    authorization?: string;
    method?: string;
  },
) {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  } else if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  if (init.authorization) headers.authorization = init.authorization;
  const res = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${init.method ?? 'POST'} ${url} → ${res.status}: ${text}`);
  return text ? (JSON.parse(text) as Record<string, string>) : {};
}

/** Register → authorize (sign in, consent) → exchange → userinfo → API → refresh → introspect → revoke. */
export async function runEveryFlow(
  baseUrl: string,
  person: { email: string; password: string },
  secrets: IssuedSecrets,
): Promise<void> {
  secrets.values.add(person.password);
  for (const auth of ['none', 'client_secret_post', 'client_secret_basic'] as const) {
    const client = await call(`${baseUrl}/api/oauth/register`, {
      json: { client_name: `flow ${auth}`, redirect_uris: [REDIRECT], token_endpoint_auth_method: auth },
    });
    const credentials: Record<string, string> = { client_id: client.client_id! };
    // client_secret_basic: the secret travels in the Authorization header (RFC 6749 §2.3.1).
    let authorization: string | undefined;
    if (client.client_secret) {
      secrets.values.add(client.client_secret);
      if (auth === 'client_secret_basic') {
        const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
        secrets.values.add(basic);
        authorization = `Basic ${basic}`;
      } else credentials.client_secret = client.client_secret;
    }
    const browser = new Browser(baseUrl);
    const pkce = pkcePair();
    secrets.values.add(pkce.verifier);
    const redirect = await authorizeViaPages({
      baseUrl,
      browser,
      params: {
        client_id: client.client_id!,
        redirect_uri: REDIRECT,
        scope: 'openid profile email courses:read',
        code_challenge: pkce.challenge,
        state: 'flow-state',
        nonce: 'flow-nonce',
      },
      email: person.email,
      password: person.password,
      decision: 'allow',
    });
    for (const value of browser.cookies.values()) secrets.values.add(decodeURIComponent(value));
    const code = redirect.searchParams.get('code')!;
    secrets.values.add(code);
    const tokens = await call(`${baseUrl}/api/oauth/token`, {
      form: {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: pkce.verifier,
        ...credentials,
      },
      authorization,
    });
    for (const key of ['access_token', 'refresh_token', 'id_token'])
      if (tokens[key]) secrets.values.add(tokens[key]!);
    await call(`${baseUrl}/api/oauth/userinfo`, { bearer: tokens.access_token!, method: 'GET' });
    const refreshed = await call(`${baseUrl}/api/oauth/token`, {
      form: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, ...credentials },
      authorization,
    });
    for (const key of ['access_token', 'refresh_token', 'id_token'])
      if (refreshed[key]) secrets.values.add(refreshed[key]!);
    await call(`${baseUrl}/api/oauth/introspect`, {
      form: { token: refreshed.access_token!, ...credentials },
      authorization,
    });
    await call(`${baseUrl}/api/oauth/revoke`, {
      form: { token: refreshed.refresh_token!, ...credentials },
      authorization,
    });
    // A failed sign-in too: its password must not leak either.
    const wrong = `wrong password ${auth}`;
    secrets.values.add(wrong);
    await authorizeViaPages({
      baseUrl,
      params: {
        client_id: client.client_id!,
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: pkce.challenge,
      },
      email: person.email,
      password: wrong,
      decision: 'allow',
    }).catch(() => undefined);
  }
}

/** Each secret, and its random part without the recognisable prefix, so partial copies are found too. */
export function needles(secrets: IssuedSecrets): string[] {
  return [...secrets.values].flatMap((s) => {
    const parts = [s];
    const random = s.replace(/^sa_[a-z]{2}_/, '');
    if (random !== s) parts.push(random);
    // A JWT's signature part is the one piece that is secret-unique.
    if (s.split('.').length === 3) parts.push(s.split('.')[2]!);
    return parts.filter((p) => p.length >= 8);
  });
}
