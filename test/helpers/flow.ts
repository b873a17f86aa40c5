/**
 * Driving the authorization pages over HTTP, as a browser would — for any test that needs a
 * real authorization code (token, userinfo, interop, API suites).
 *
 *   const t = await createTestApp(dialect, { listen: true });
 *   const person = await createPerson(t.ctx.store);                      // { account, email, password }
 *   const client = await insertTestClient(t.ctx.db);                   // a real `clients` row (public, loopback)
 *   const pkce = pkcePair();                                           // { verifier, challenge }
 *   const redirect = await authorizeViaPages({
 *     baseUrl: t.url,
 *     params: { client_id: client.id, redirect_uri: 'http://127.0.0.1:9999/callback', scope: 'openid',
 *               code_challenge: pkce.challenge, state: 'xyz' },      // response_type=code and
 *     email: person.email, password: person.password,                //   code_challenge_method=S256 are added
 *     decision: 'allow',                                             // or 'deny'
 *   });
 *   redirect.searchParams.get('code');                                 // the URL the server sent the browser to
 *
 * `authorizeViaPages` signs in when the sign-in page appears, answers the consent page with the
 * decision, and returns the first redirect that leaves the server's origin. Pass `browser` (a
 * `Browser`, i.e. a cookie jar) to keep one person's session across calls (remembered consent,
 * prompt=none). It throws, with the page's text, on any other answer (e.g. an error page).
 *
 * `Browser` is a fetch wrapper with a cookie jar that never follows redirects itself;
 * `readForm(html, action?)` extracts a form's action and hidden fields (HTML-unescaped).
 * Cookie names: `schoolauth_session` (and `__Host-schoolauth_session` on an https issuer) holds
 * the session; `schoolauth_signin` holds the sign-in form's CSRF secret. Form field `csrf_token`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Kysely } from 'kysely';
import { createAccount } from '../../src/accounts/accounts.js';
import { randomId } from '../../src/crypto/tokens.js';
import { insertClient } from '../../src/storage/clients.repository.js';
import type { Account, Client, ClientKind, Database } from '../../src/storage/schema.js';
import type { Store } from '../../src/storage/store.js';

export interface Person {
  readonly account: Account;
  readonly email: string;
  readonly password: string;
}

/** A fresh account (in a school of its own unless `school` names an existing one). */
export async function createPerson(
  store: Store,
  options: { email?: string; password?: string; name?: string; school?: string; now?: number } = {},
): Promise<Person> {
  const suffix = randomBytes(4).toString('hex');
  const email = options.email ?? `person-${suffix}@example.com`;
  const password = options.password ?? `correct horse ${suffix}`;
  const { account } = await createAccount(
    store,
    {
      email,
      password,
      name: options.name ?? `Person ${suffix}`,
      school: options.school ?? `school-${suffix}`,
      schoolName: `School ${suffix}`,
    },
    options.now ?? Math.floor(Date.now() / 1000),
  );
  return { account, email, password };
}

/** Inserts a client row directly (for tests that do not go through registration). */
export async function insertTestClient(
  db: Kysely<Database>,
  options: {
    kind?: ClientKind;
    name?: string;
    redirectUris?: string[];
    disabled?: boolean;
    /** A confidential client (client_secret_post) whose secret is unknown to the test. */
    confidential?: boolean;
    now?: number;
    /** Registered metadata kept with the row (client_uri, policy_uri, tos_uri, logo_uri …). */
    metadata?: Record<string, unknown>;
  } = {},
): Promise<Client> {
  const client: Client = {
    id: randomId('cl_'),
    kind: options.kind ?? 'dynamic',
    name: options.name ?? 'Test CLI',
    application_type: options.kind === 'integration' ? 'web' : 'native',
    redirect_uris: JSON.stringify(options.redirectUris ?? ['http://127.0.0.1/callback']),
    token_endpoint_auth_method: options.confidential ? 'client_secret_post' : 'none',
    secret_hash: options.confidential ? randomBytes(32).toString('hex') : null,
    grant_types: JSON.stringify(['authorization_code', 'refresh_token']),
    response_types: JSON.stringify(['code']),
    metadata: JSON.stringify(options.metadata ?? {}),
    id_token_signed_response_alg: 'RS256',
    disabled: options.disabled ? 1 : 0,
    created_at: options.now ?? Math.floor(Date.now() / 1000),
    last_used_at: null,
  };
  await insertClient(db, client);
  return client;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' };
export const unescapeHtml = (s: string): string =>
  s.replace(/&(amp|lt|gt|quot|#39|#96);/g, (_, e) => ENTITIES[e]!);

export interface ParsedForm {
  readonly action: string;
  readonly fields: Record<string, string>;
  /** Names and values of the submit buttons. */
  readonly buttons: Array<{ name: string; value: string; label: string }>;
}

/** All forms of a page (method=post), in document order. */
export function readForms(html: string): ParsedForm[] {
  return [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map((m) => {
    const fields: Record<string, string> = {};
    for (const input of m[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields[unescapeHtml(input[1]!)] = unescapeHtml(input[2]!);
    }
    // Ticked boxes, as a browser submits them; the values of one name joined with spaces (the
    // consent form's scope boxes: the server splits each value on spaces).
    for (const box of m[2]!.matchAll(
      /<input type="checkbox"[^>]*? name="([^"]*)" value="([^"]*)" checked>/g,
    )) {
      const name = unescapeHtml(box[1]!);
      const value = unescapeHtml(box[2]!);
      fields[name] = fields[name] === undefined ? value : `${fields[name]} ${value}`;
    }
    const buttons = [
      ...m[2]!.matchAll(/<button[^>]*?(?: name="([^"]*)" value="([^"]*)")?>([^<]*)<\/button>/g),
    ].map((b) => ({ name: b[1] ?? '', value: b[2] ?? '', label: b[3]! }));
    return { action: unescapeHtml(m[1]!), fields, buttons };
  });
}

/** The first form posting to `action` (or the first form). */
export function readForm(html: string, action?: string): ParsedForm {
  const form = readForms(html).find((f) => action === undefined || f.action === action);
  if (!form) throw new Error(`no form${action ? ` posting to ${action}` : ''} in page: ${pageText(html)}`);
  return form;
}

export function pageText(html: string): string {
  return unescapeHtml(html.replace(/<head>[\s\S]*<\/head>/, '').replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * One HTTP exchange with node:http bound to `localAddress` (e.g. 127.0.0.2: every 127/8 address
 * is this machine), answered as a fetch Response. fetch cannot choose its source address.
 */
function requestFrom(
  localAddress: string,
  url: URL,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method, headers: init.headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const headers = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const body = chunks.length > 0 ? Buffer.concat(chunks) : null;
        resolve(new Response(body, { status: res.statusCode!, headers }));
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * fetch with a cookie jar; redirects are returned, not followed. With `localAddress` the requests
 * leave from that loopback address, so the server sees a client IP of its own.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly baseUrl: string,
    readonly localAddress?: string,
  ) {}

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string> | ReadonlyArray<[string, string]> } = {},
  ): Promise<Response> {
    const target = new URL(url, this.baseUrl);
    const headers: Record<string, string> = {};
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form as Record<string, string> | Array<[string, string]>).toString();
    }
    const method = init.method ?? (body ? 'POST' : 'GET');
    const response = this.localAddress
      ? await requestFrom(this.localAddress, target, { method, headers, body })
      : await fetch(target, { method, headers, body, redirect: 'manual' });
    this.store(response.headers.getSetCookie());
    return response;
  }

  /** The Cookie header value for a request (every cookie of the jar; tests use one host). */
  cookieHeader(): string | undefined {
    return this.cookies.size > 0 ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  get(url: string): Promise<Response> {
    return this.request(url);
  }

  /** Posts a form; entries as pairs repeat a name (several boxes or hidden fields of one name). */
  post(url: string, form: Record<string, string> | ReadonlyArray<[string, string]>): Promise<Response> {
    return this.request(url, { method: 'POST', form });
  }

  /** Keeps (or, when expired, drops) the cookies of Set-Cookie lines. */
  store(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a),
      );
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(eq + 1).trim());
    }
  }
}

export interface AuthorizeOptions {
  readonly baseUrl: string;
  /** Authorization request parameters; response_type=code and code_challenge_method=S256 are defaults. */
  readonly params: Record<string, string>;
  readonly email?: string;
  readonly password?: string;
  readonly decision?: 'allow' | 'deny';
  readonly browser?: Browser;
}

function authorizeUrl(baseUrl: string, params: Record<string, string>): string {
  const query = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params });
  return `${baseUrl}/oauth/authorize?${query}`;
}

/** Answers one page of the flow: the sign-in form or the consent form. */
function answer(html: string, options: AuthorizeOptions): { action: string; form: Record<string, string> } {
  const form = readForm(html);
  if (form.fields.step === 'signin') {
    if (options.email === undefined || options.password === undefined)
      throw new Error('sign-in page shown but no email/password given');
    return {
      action: form.action,
      form: { ...form.fields, email: options.email, password: options.password },
    };
  }
  if (form.fields.step === 'consent') {
    if (!options.decision) throw new Error('consent page shown but no decision given');
    return { action: form.action, form: { ...form.fields, decision: options.decision } };
  }
  throw new Error(`unexpected page: ${pageText(html)}`);
}

/** Runs the authorization flow through the pages; returns the redirect that leaves the server. */
export async function authorizeViaPages(options: AuthorizeOptions): Promise<URL> {
  const browser = options.browser ?? new Browser(options.baseUrl);
  const origin = new URL(options.baseUrl).origin;
  let response = await browser.get(authorizeUrl(options.baseUrl, options.params));
  for (let step = 0; step < 6; step++) {
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, options.baseUrl);
      if (next.origin !== origin) return next;
      response = await browser.get(next.href);
      continue;
    }
    const html = await response.text();
    if (response.status !== 200)
      throw new Error(`authorization answered ${response.status}: ${pageText(html)}`);
    const { action, form } = answer(html, options);
    response = await browser.post(action, form);
  }
  throw new Error('authorization flow did not finish within 6 steps');
}
