/**
 * The pure policy of Client ID Metadata Documents (docs/decisions.md "Client ID Metadata Documents"): which addresses may be fetched, which
 * client_id URLs name a document, which documents are valid, which redirect URIs of a document a
 * request may use, how long a document is cached, and what the operator's rules say.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cacheLifetime } from '../../src/oauth/client-id-metadata/cache-lifetime.js';
import {
  clientIdHost,
  clientIdUrlProblem,
  isClientIdUrl,
} from '../../src/oauth/client-id-metadata/client-id-url.js';
import { MAX_DOCUMENT_REDIRECT_URIS, validateDocument } from '../../src/oauth/client-id-metadata/document.js';
import { judgeRedirect } from '../../src/oauth/client-id-metadata/redirect-policy.js';
import { domainProblem, inDomain, judgeClientId } from '../../src/oauth/client-id-metadata/rules.js';
import { specialAddressProblem } from '../../src/oauth/client-id-metadata/special-addresses.js';
import type { ClientMetadataRule } from '../../src/storage/schema.js';

describe('special-use addresses (RFC 6890) are never fetched from', () => {
  const REFUSED = [
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '100.127.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:7f00:1',
    '::a00:1',
    '64:ff9b::a00:1',
    '64:ff9b:1::1',
    '100::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    '2001::1',
    '2001:db8::1',
    '2002:a00:1::1',
    '3fff::1',
    'not-an-address',
  ];
  for (const address of REFUSED) {
    it(`refuses ${address}`, () => {
      assert.ok(
        specialAddressProblem(address, true),
        `${address} must be refused even for a loopback issuer`,
      );
    });
  }

  it('accepts global unicast addresses, IPv4-mapped ones judged as the IPv4 they carry', () => {
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '172.15.255.255',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '2a00:1450::1',
      '::ffff:1.1.1.1',
    ]) {
      assert.equal(specialAddressProblem(address, false), undefined, address);
    }
  });

  it('allows loopback (127/8, ::1, ::ffff:127.0.0.1) only for a loopback issuer', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      assert.match(specialAddressProblem(address, false) ?? '', /loopback/, address);
      assert.equal(specialAddressProblem(address, true), undefined, address);
    }
  });
});

describe('client_id URLs (draft §3)', () => {
  it('a client_id is a URL when it has a scheme and "//"; issued ids never are', () => {
    assert.ok(isClientIdUrl('https://app.example.com/client.json'));
    assert.ok(isClientIdUrl('http://app.example.com/client.json'));
    assert.ok(!isClientIdUrl('dyn_abc'));
    assert.ok(!isClientIdUrl('int_abc'));
    assert.ok(!isClientIdUrl('urn:example:client'));
  });

  it('accepts https URLs with a path, a port, a query', () => {
    for (const url of [
      'https://app.example.com/client.json',
      'https://app.example.com:8443/oauth/client',
      'https://app.example.com/',
      'https://app.example.com/c?v=1',
      'https://127.0.0.1:9443/agent.json',
    ]) {
      assert.equal(clientIdUrlProblem(url), undefined, url);
    }
  });

  const REFUSED: ReadonlyArray<[string, RegExp]> = [
    ['http://app.example.com/client.json', /does not use https/],
    ['HTTPS://app.example.com/client.json', /does not use https/],
    ['https://app.example.com', /has no path/],
    ['https://app.example.com?x=1', /has no path/],
    ['https://user:pw@app.example.com/c', /user information/],
    ['https://app.example.com/c#frag', /fragment/],
    ['https://app.example.com/c#', /fragment/],
    ['https://app.example.com/a/../c', /"\." or "\.\." path segment/],
    ['https://app.example.com/./c', /"\." or "\.\." path segment/],
    ['https://app.example.com/a/%2e%2E/c', /"\." or "\.\." path segment/],
    ['https://App.Example.com/c', /canonical form; use "https:\/\/app\.example\.com\/c"/],
    ['https://app.example.com:443/c', /canonical form/],
    ['https://app.example.com./c', /names its host with a final dot; use "https:\/\/app\.example\.com\/c"/],
    ['https://app.example.com/c d', /whitespace/],
    ['https://аpp.example.com/c', /non-ASCII/],
    ['https://[::1/c', /not a valid URL/],
    [`https://app.example.com/${'a'.repeat(2000)}`, /longer than 2000/],
  ];
  for (const [url, reason] of REFUSED) {
    it(`refuses ${url.slice(0, 60)}`, () => assert.match(clientIdUrlProblem(url) ?? '', reason));
  }
});

const URL_ = 'https://agent.example.com/oauth/client.json';
const doc = (extra: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      client_id: URL_,
      client_name: 'Agent',
      redirect_uris: ['http://127.0.0.1/callback'],
      ...extra,
    }),
  );

describe('metadata documents (draft §4, §4.1)', () => {
  it('a document listing the device grant (RFC 8628) beside authorization_code is kept with it', () => {
    const result = validateDocument(
      doc({ grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'] }),
      URL_,
    );
    assert.ok('document' in result);
    assert.equal(result.document.deviceGrant, true);
  });

  it('keeps name, redirect URIs, application_type and an https client_uri of a valid document', () => {
    const result = validateDocument(
      doc({
        application_type: 'native',
        client_uri: 'https://agent.example.com',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        logo_uri: 'javascript:alert(1)',
        unknown_member: 1,
      }),
      URL_,
    );
    assert.deepEqual(result, {
      document: {
        clientId: URL_,
        clientName: 'Agent',
        redirectUris: ['http://127.0.0.1/callback'],
        applicationType: 'native',
        clientUri: 'https://agent.example.com',
        idTokenAlg: 'RS256',
        dpopBoundAccessTokens: false,
        deviceGrant: false,
      },
    });
  });

  it('keeps dpop_bound_access_tokens (RFC 9449 §5.2) when true; refuses one that is not a boolean', () => {
    const bound = validateDocument(doc({ dpop_bound_access_tokens: true }), URL_);
    assert.ok('document' in bound);
    assert.equal(bound.document.dpopBoundAccessTokens, true);
    const refused = validateDocument(doc({ dpop_bound_access_tokens: 'yes' }), URL_);
    assert.ok('problem' in refused);
    assert.match(refused.problem, /"dpop_bound_access_tokens" that is not true or false/);
  });

  it('keeps the id_token_signed_response_alg a document names (ES256, EdDSA)', () => {
    for (const alg of ['ES256', 'EdDSA', 'RS256']) {
      const result = validateDocument(doc({ id_token_signed_response_alg: alg }), URL_);
      assert.ok('document' in result);
      assert.equal(result.document.idTokenAlg, alg);
    }
  });

  const REFUSED: ReadonlyArray<[string, Buffer, RegExp]> = [
    ['not JSON', Buffer.from('<html>'), /not valid JSON/],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), /not valid JSON/],
    ['an array', Buffer.from('[]'), /not a JSON object/],
    [
      'another client_id',
      doc({ client_id: 'https://evil.example.com/c.json' }),
      /names client_id "https:\/\/evil\.example\.com\/c\.json", not the URL/,
    ],
    [
      'client_id differing only in a trailing slash',
      doc({ client_id: `${URL_}/` }),
      /not the URL it was fetched from/,
    ],
    ['no client_id', doc({ client_id: undefined }), /no "client_id"/],
    [
      'an HS256 id_token_signed_response_alg',
      doc({ id_token_signed_response_alg: 'HS256' }),
      /declares id_token_signed_response_alg "HS256"; this server signs ID tokens with "RS256", "ES256", "EdDSA" only/,
    ],
    ['no client_name', doc({ client_name: undefined }), /no "client_name"/],
    ['an empty client_name', doc({ client_name: '  ' }), /"client_name" that is not a non-empty string/],
    [
      'a client_name of Hangul fillers',
      doc({ client_name: '\u3164\u3164' }),
      /has a "client_name" shows nothing: .*the first is U\+3164/,
    ],
    [
      'a client_name of Braille blanks',
      doc({ client_name: '\u2800' }),
      /has a "client_name" shows nothing: .*the first is U\+2800/,
    ],
    ['a control character in client_name', doc({ client_name: 'A\u0007' }), /"client_name" contains U\+0007/],
    [
      'a bidi override in client_name',
      doc({ client_name: 'Agent\u202Eevil' }),
      /"client_name" contains U\+202E/,
    ],
    ['no redirect_uris', doc({ redirect_uris: undefined }), /no "redirect_uris"/],
    ['empty redirect_uris', doc({ redirect_uris: [] }), /not an array of 1 to 20/],
    [
      'too many redirect_uris',
      doc({
        redirect_uris: Array.from(
          { length: MAX_DOCUMENT_REDIRECT_URIS + 1 },
          (_, i) => `http://127.0.0.1/${i}`,
        ),
      }),
      /not an array of 1 to 20/,
    ],
    ['a non-string redirect URI', doc({ redirect_uris: [42] }), /entry that is not a non-empty string/],
    ['client_secret_post', doc({ token_endpoint_auth_method: 'client_secret_post' }), /shared-secret method/],
    [
      'client_secret_basic',
      doc({ token_endpoint_auth_method: 'client_secret_basic' }),
      /shared-secret method/,
    ],
    ['client_secret_jwt', doc({ token_endpoint_auth_method: 'client_secret_jwt' }), /shared-secret method/],
    ['private_key_jwt', doc({ token_endpoint_auth_method: 'private_key_jwt' }), /public clients only/],
    ['a client_secret', doc({ client_secret: 's3cret' }), /"client_secret"/],
    ['client_secret_expires_at', doc({ client_secret_expires_at: 0 }), /"client_secret"/],
    [
      'a private key in jwks',
      doc({ jwks: { keys: [{ kty: 'EC', d: 'x', x: 'y', y: 'z', crv: 'P-256' }] } }),
      /private key material/,
    ],
    [
      'grant_types without authorization_code',
      doc({ grant_types: ['client_credentials'] }),
      /authorization_code/,
    ],
    ['response_types without code', doc({ response_types: ['token'] }), /without "code"/],
  ];
  for (const [name, bytes, reason] of REFUSED) {
    it(`refuses a document with ${name}`, () => {
      const result = validateDocument(bytes, URL_);
      assert.ok('problem' in result, name);
      assert.match(result.problem, reason);
    });
  }
});

describe('redirect URIs of a document', () => {
  const HOSTS = ['127.0.0.1', '[::1]', 'localhost'];
  const open = { trusted: false, loopbackHosts: HOSTS };
  const trusted = { trusted: true, loopbackHosts: HOSTS };
  // Shaped like the real agents' documents: portless loopback entries, a path-less one, an https one.
  const listed = [
    'http://localhost/callback',
    'http://127.0.0.1/callback',
    'http://127.0.0.1:33418',
    'http://[::1]/cb',
    'https://vscode.dev/redirect',
    'cursor://anysphere.cursor/callback',
  ];

  it('a portless loopback entry matches any port, for 127.0.0.1, [::1] and localhost', () => {
    for (const uri of [
      'http://localhost:51234/callback',
      'http://127.0.0.1:1/callback',
      'http://127.0.0.1/callback',
      'http://[::1]:65535/cb',
    ]) {
      assert.deepEqual(judgeRedirect(uri, listed, open), { ok: true }, uri);
    }
  });

  it('a path-less loopback entry equals "/" (RFC 3986 §6.2.3), on any port', () => {
    for (const uri of ['http://127.0.0.1:4242', 'http://127.0.0.1:4242/', 'http://127.0.0.1/']) {
      assert.deepEqual(judgeRedirect(uri, listed, open), { ok: true }, uri);
    }
  });

  it('host, path and query must match; other loopback spellings never do', () => {
    for (const uri of [
      'http://127.0.0.1:4242/callback/',
      'http://localhost:4242/cb',
      'http://127.0.0.1:4242/callback?x=1',
      'http://127.0.0.2:4242/callback',
      'http://LOCALHOST:4242/callback',
      'http://127.0.0.1:0/callback',
      'http://127.0.0.1:65536/callback',
      'http://127.0.0.1:04242/callback',
      'http://127.0.0.1:4242/x/../callback',
      'http://127.0.0.1:4242/callback#f',
      'http://user@127.0.0.1:4242/callback',
    ]) {
      const decision = judgeRedirect(uri, listed, open);
      assert.equal(decision.ok, false, uri);
    }
  });

  it('an unlisted URI is refused as not in the document', () => {
    const decision = judgeRedirect('https://evil.example.com/cb', listed, trusted);
    assert.deepEqual(decision, { ok: false, problem: "is not listed in the app's metadata document" });
  });

  it('an https entry needs the operator: refused by default, usable by exact string when trusted', () => {
    const refused = judgeRedirect('https://vscode.dev/redirect', listed, open);
    assert.equal(refused.ok, false);
    assert.match(
      !refused.ok ? refused.problem : '',
      /fixed HTTPS callback.*registered the app as an integration/,
    );
    assert.deepEqual(judgeRedirect('https://vscode.dev/redirect', listed, trusted), { ok: true });
    assert.equal(judgeRedirect('https://vscode.dev/redirect/', listed, trusted).ok, false);
  });

  it('custom schemes and non-loopback http entries are never usable', () => {
    assert.match(
      JSON.stringify(judgeRedirect('cursor://anysphere.cursor/callback', listed, trusted)),
      /not a loopback address/,
    );
    assert.match(
      JSON.stringify(judgeRedirect('http://example.com/cb', ['http://example.com/cb'], trusted)),
      /not a loopback address/,
    );
  });

  it('honours LOOPBACK_HOSTS', () => {
    assert.equal(
      judgeRedirect('http://localhost:1/callback', listed, { trusted: false, loopbackHosts: ['127.0.0.1'] })
        .ok,
      false,
    );
  });
});

describe('cache lifetime (draft §5.2)', () => {
  const bounds = { min: 60, max: 3600 };
  const now = 1_700_000_000;
  const at = (s: number) => new Date(s * 1000).toUTCString();
  const cases: ReadonlyArray<[string, { cacheControl?: string; expires?: string; date?: string }, number]> = [
    ['max-age within bounds', { cacheControl: 'public, max-age=600' }, 600],
    ['max-age above the maximum', { cacheControl: 'max-age=999999' }, 3600],
    ['max-age below the minimum', { cacheControl: 'max-age=5' }, 60],
    ['no-store: the minimum', { cacheControl: 'no-store' }, 60],
    ['no-cache: the minimum', { cacheControl: 'no-cache, max-age=600' }, 60],
    ['a malformed max-age: the minimum', { cacheControl: 'max-age=soon' }, 60],
    ['max-age wins over Expires', { cacheControl: 'max-age=120', expires: at(now + 3000) }, 120],
    ['Expires minus Date', { expires: at(now + 900), date: at(now - 100) }, 1000],
    ['Expires minus now without Date', { expires: at(now + 900) }, 900],
    ['an invalid Expires: the minimum', { expires: '0' }, 60],
    ['no cache headers: the minimum', {}, 60],
  ];
  for (const [name, headers, seconds] of cases) {
    it(name, () => {
      const full = { cacheControl: undefined, expires: undefined, date: undefined, ...headers };
      assert.equal(cacheLifetime(full, bounds, now), seconds);
    });
  }
});

describe('operator rules (draft §8.9)', () => {
  const rule = (
    target_kind: 'client_id' | 'domain',
    target: string,
    decision: 'block' | 'trust',
  ): ClientMetadataRule => ({ target_kind, target, decision, created_at: 0 });
  const id = 'https://app.example.com/client.json';

  it('a domain rule covers the host and its subdomains, never a look-alike', () => {
    const rules = [rule('domain', 'example.com', 'trust')];
    assert.equal(judgeClientId(rules, id, 'app.example.com'), 'trusted');
    assert.equal(judgeClientId(rules, 'https://example.com/c', 'example.com'), 'trusted');
    assert.equal(judgeClientId(rules, 'https://badexample.com/c', 'badexample.com'), 'default');
    assert.equal(judgeClientId(rules, 'https://example.com.evil.net/c', 'example.com.evil.net'), 'default');
  });

  it('a rule matches its host in every spelling: a final dot, upper case, an IDN or its A-label', () => {
    const block = [rule('domain', 'rt-blocked.example', 'block')];
    for (const host of ['rt-blocked.example.', 'RT-Blocked.Example', 'app.rt-blocked.example.']) {
      assert.equal(judgeClientId(block, `https://${host}/client.json`, host), 'blocked', host);
    }
    const idn = [rule('domain', 'xn--bcher-kva.example', 'block')];
    assert.equal(judgeClientId(idn, 'https://xn--bcher-kva.example/c', 'bücher.example'), 'blocked');
    assert.equal(judgeClientId(idn, 'https://xn--bcher-kva.example/c', 'xn--bcher-kva.example.'), 'blocked');
    assert.equal(inDomain('BÜCHER.example.', 'xn--bcher-kva.example'), true);
    const byId = [rule('client_id', 'https://rt-blocked.example/client.json', 'block')];
    assert.equal(
      judgeClientId(byId, 'https://rt-blocked.example./client.json', 'rt-blocked.example'),
      'blocked',
    );
  });

  it('the host shown and judged for a client_id URL has no final dot', () => {
    assert.equal(clientIdHost('https://rt-blocked.example./client.json'), 'rt-blocked.example');
    assert.equal(clientIdHost('https://[::1]:8443/c'), '[::1]');
  });

  it('a client_id rule matches that URL exactly', () => {
    const rules = [rule('client_id', id, 'trust')];
    assert.equal(judgeClientId(rules, id, 'app.example.com'), 'trusted');
    assert.equal(judgeClientId(rules, `${id}?v=2`, 'app.example.com'), 'default');
  });

  it('a block wins over a trust, whichever is more specific', () => {
    assert.equal(
      judgeClientId(
        [rule('client_id', id, 'trust'), rule('domain', 'example.com', 'block')],
        id,
        'app.example.com',
      ),
      'blocked',
    );
    assert.equal(
      judgeClientId(
        [rule('domain', 'example.com', 'trust'), rule('client_id', id, 'block')],
        id,
        'app.example.com',
      ),
      'blocked',
    );
  });

  it('an IP literal rule matches only that address', () => {
    const rules = [rule('domain', '0.0.1', 'block')];
    assert.equal(
      judgeClientId([rule('domain', '127.0.0.1', 'block')], 'https://127.0.0.1/c', '127.0.0.1'),
      'blocked',
    );
    assert.equal(judgeClientId(rules, 'https://127.0.0.1/c', '127.0.0.1'), 'default');
  });

  it('rule domains: lower-case host names of two labels or more, or IP literals', () => {
    for (const ok of ['example.com', 'a.b.example.co.uk', 'xn--bcher-kva.example', '127.0.0.1', '[::1]'])
      assert.equal(domainProblem(ok), undefined, ok);
    for (const bad of [
      'com',
      'Example.com',
      'example.com.',
      '*.example.com',
      'https://example.com',
      'exa mple.com',
      '0.0.1',
      '',
    ])
      assert.ok(domainProblem(bad), bad);
  });
});
