/**
 * fast-check generators of hostile HTTP requests: wrong and missing content types, wrong JSON
 * types, deep and huge bodies, invalid UTF-8, NUL bytes, repeated and array parameters, overlong
 * values, header injection, and Unicode look-alikes and encodings in redirect URIs, resources
 * and scopes.
 */
import fc from 'fast-check';

export const MARKER = '<script>hostile()</script>';

/** Values an attacker would try in any parameter. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      MARKER,
      `"><img src=x onerror=hostile()>${MARKER}`,
      "javascript:alert('x')",
      '\r\nSet-Cookie: injected=1',
      '%0d%0aX-Injected:%201',
      '\u0000',
      'a\u0000b',
      '\ud800',
      '\uffff',
      '../../../etc/passwd',
      "' OR 1=1 --",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, literally
      '${jndi:ldap://x}',
      '__proto__',
      'constructor',
      '{"$gt":""}',
      'x'.repeat(5000),
      'y'.repeat(70000),
      '',
      ' ',
      'null',
      '-1',
      '1e309',
      'NaN',
      '9'.repeat(40),
    ),
  },
);

export const redirectUriLike: fc.Arbitrary<string> = fc.constantFrom(
  'http://127.0.0.1:8765/callback',
  'http://127.0.0.1:8765/callback#frag',
  'http://127.0.0.1:8765/callback?x=1',
  'http://127.0.0.1:8765/CALLBACK',
  'http://127.0.0.1.evil.com:8765/callback',
  'http://127.0.0.1@evil.com/callback',
  'http://evil.com#@127.0.0.1:8765/callback',
  'https://127.0.0.1:8765/callback',
  'http://ⅼocalhost:8765/callback',
  'http://locaⅼhost:8765/callback',
  'http://127。0。0。1:8765/callback',
  'http://%31%32%37.0.0.1:8765/callback',
  'http://0x7f.0.0.1:8765/callback',
  'http://2130706433:8765/callback',
  'http://[::ffff:127.0.0.1]:8765/callback',
  'http://[::1]:8765/callback',
  'http://localhost:8765/callback',
  'myapp://callback',
  'javascript://127.0.0.1/%0aalert(1)',
  'data:text/html,<script>hostile()</script>',
  '//evil.com/callback',
  'http://127.0.0.1:8765/callback/../../evil',
  'http://127.0.0.1:8765/call%2fback',
  `http://127.0.0.1:8765/${MARKER}`,
);

export const resourceLike: fc.Arbitrary<string> = fc.constantFrom(
  'http://127.0.0.1:3000',
  'http://127.0.0.1:3000/',
  'http://127.0.0.1:3000#frag',
  'http://127.0.0.1:3000/other',
  'https://evil.com',
  'urn:example:api',
  '/relative',
  'http://127.0.0.1:3000@evil.com',
  'http://ⅼocalhost:3000',
);

export const scopeLike: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'openid',
    'openid profile email',
    'openid  profile',
    'openid\tprofile',
    'openid\u00a0profile',
    'ｏｐｅｎｉｄ',
    'courses:read courses:read',
    'courses:admin',
    'openid '.repeat(2000),
    '',
  ),
  fc
    .subarray(['openid', 'profile', 'email', 'courses:read', 'orders:read', 'account:write'])
    .map((s) => s.join(' ')),
);

export const PARAM_NAMES = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'nonce',
  'prompt',
  'max_age',
  'grant_type',
  'code',
  'code_verifier',
  'refresh_token',
  'token',
  'token_type_hint',
  'client_secret',
  'access_token',
  'limit',
  'cursor',
  'csrf_token',
  'email',
  'password',
  'decision',
  'request',
  'request_uri',
  'client_name',
  '__proto__',
] as const;

export function paramValue(name: string, known: { clientId: string }): fc.Arbitrary<string> {
  const specific = new Map<string, fc.Arbitrary<string>>(
    Object.entries({
      client_id: fc.oneof(fc.constant(known.clientId), nastyString),
      redirect_uri: redirectUriLike,
      resource: resourceLike,
      scope: scopeLike,
      response_type: fc.oneof(fc.constantFrom('code', 'token', 'code id_token', 'CODE'), nastyString),
      code_challenge_method: fc.oneof(fc.constantFrom('S256', 'plain', 's256'), nastyString),
      code_challenge: fc.oneof(fc.constant('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), nastyString),
      grant_type: fc.oneof(
        fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'password'),
        nastyString,
      ),
      prompt: fc.oneof(
        fc.constantFrom('none', 'login', 'consent', 'select_account', 'none login'),
        nastyString,
      ),
    }),
  );
  // A Map, not an object: parameter names include "__proto__" and "constructor".
  return specific.get(name) ?? nastyString;
}

export type Params = Array<[string, string]>;

/** A parameter list: some known names (sometimes repeated), with hostile values. */
export function paramsArb(known: { clientId: string }): fc.Arbitrary<Params> {
  const pair = fc
    .constantFrom(...PARAM_NAMES)
    .chain((name) => paramValue(name, known).map((v): [string, string] => [name, v]));
  return fc.array(
    fc.oneof({ weight: 5, arbitrary: pair }, { weight: 1, arbitrary: fc.tuple(nastyString, nastyString) }),
    {
      maxLength: 12,
    },
  );
}

export type BodyKind =
  | 'none'
  | 'form'
  | 'json'
  | 'json-wrong'
  | 'deep'
  | 'huge'
  | 'invalid-utf8'
  | 'nul'
  | 'garbage';

export interface HostileBody {
  readonly kind: BodyKind;
  readonly contentType: string | undefined;
  readonly payload: string | Buffer | undefined;
}

const contentTypes = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/x-www-form-urlencoded; charset=latin1',
  '',
  '*/*',
  `text/html; ${MARKER}`,
);

function encodeForm(params: Params): string {
  const search = new URLSearchParams();
  for (const [k, v] of params) search.append(k, v);
  return search.toString();
}

export function bodyArb(known: { clientId: string }): fc.Arbitrary<HostileBody> {
  const params = paramsArb(known);
  const json = fc.jsonValue({ maxDepth: 4 });
  return fc.oneof(
    fc.constant<HostileBody>({ kind: 'none', contentType: undefined, payload: undefined }),
    fc.tuple(params, fc.option(contentTypes)).map(
      ([p, ct]): HostileBody => ({
        kind: 'form',
        contentType: ct ?? 'application/x-www-form-urlencoded',
        payload: encodeForm(p),
      }),
    ),
    fc.tuple(params, fc.boolean()).map(
      ([p, asArrays]): HostileBody => ({
        kind: 'json',
        contentType: 'application/json',
        payload: JSON.stringify(Object.fromEntries(p.map(([k, v]) => [k, asArrays ? [v, v] : v]))),
      }),
    ),
    fc.tuple(json, fc.option(contentTypes)).map(
      ([value, ct]): HostileBody => ({
        kind: 'json-wrong',
        contentType: ct ?? 'application/json',
        payload: JSON.stringify(value) ?? 'null',
      }),
    ),
    fc
      .tuple(
        fc.integer({ min: 100, max: 20000 }),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded'),
      )
      .map(
        ([depth, ct]): HostileBody => ({
          kind: 'deep',
          contentType: ct,
          payload:
            ct === 'application/json'
              ? `${'['.repeat(depth)}${']'.repeat(depth)}`
              : `a${'[b]'.repeat(depth)}=1`,
        }),
      ),
    contentTypes.map(
      (ct): HostileBody => ({ kind: 'huge', contentType: ct, payload: `x=${'a'.repeat(2 * 1024 * 1024)}` }),
    ),
    contentTypes.map(
      (ct): HostileBody => ({
        kind: 'invalid-utf8',
        contentType: ct,
        payload: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      }),
    ),
    contentTypes.map(
      (ct): HostileBody => ({
        kind: 'nul',
        contentType: ct,
        payload: 'client_id=a%00b&scope=openid\u0000&redirect_uri=http://127.0.0.1:8765/callback%00',
      }),
    ),
    fc.tuple(fc.uint8Array({ maxLength: 300 }), contentTypes).map(
      ([bytes, ct]): HostileBody => ({
        kind: 'garbage',
        contentType: ct,
        payload: Buffer.from(bytes),
      }),
    ),
  );
}

export interface HostileHeaders {
  readonly authorization?: string;
  readonly cookie?: string;
  readonly extra: Record<string, string>;
}

/** Headers: hostile values, and often the valid all-scope token so validation behind the guard is reached. */
export function headersArb(validToken: string): fc.Arbitrary<HostileHeaders> {
  return fc.record(
    {
      authorization: fc.oneof(
        { weight: 4, arbitrary: fc.constant(`Bearer ${validToken}`) },
        {
          weight: 4,
          arbitrary: fc.oneof(
            fc.constantFrom(
              'Bearer',
              'Bearer ',
              'Bearer a b',
              'Bearer sa_at_doesnotexist',
              'Basic Zm9vOmJhcg==',
              'bearer x=y=',
              `Bearer ${'a'.repeat(9000)}`,
              'Bearer <script>',
              'DPoP abc',
            ),
            nastyString.map((s) => `Bearer ${s}`),
          ),
        },
      ),
      cookie: fc.oneof(
        fc.constantFrom(
          'schoolauth_session=sa_ss_forged',
          'schoolauth_signin=x; schoolauth_session=',
          `schoolauth_device=acc_forged.${'A'.repeat(22)}.1.${'A'.repeat(43)}`,
          `a=${MARKER}`,
        ),
        nastyString.map(
          (s) => `schoolauth_session=${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))}`,
        ),
      ),
      extra: fc.dictionary(
        fc.constantFrom(
          'x-forwarded-for',
          'x-forwarded-proto',
          'x-forwarded-host',
          'host',
          'origin',
          'referer',
          'accept',
          'x-request-id',
        ),
        fc.oneof(
          nastyString.map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
          fc.constantFrom('evil.com', 'https', '1.2.3.4, 5.6.7.8'),
        ),
      ),
    },
    { requiredKeys: ['extra'] },
  );
}
