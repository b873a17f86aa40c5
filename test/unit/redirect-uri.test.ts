import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchRedirectUri, registrationRedirectUriProblem } from '../../src/oauth/redirect-uri.js';

const HOSTS = ['127.0.0.1', '[::1]', 'localhost'] as const;

const ACCEPTED: readonly string[] = [
  'http://127.0.0.1:8080/callback',
  'http://127.0.0.1:1/',
  'http://127.0.0.1:65535/a/b/c',
  'http://127.0.0.1/callback',
  'http://127.0.0.1/',
  'http://[::1]:8080/callback',
  'http://[::1]/cb',
  'http://localhost:3000/oauth/callback',
  'http://localhost/cb',
  'http://127.0.0.1:8080/callback?client=cli',
  'http://127.0.0.1:8080/callback?x=a%20b',
  'http://127.0.0.1:8080/a-b_c.d~e',
  'http://127.0.0.1:8080/cb/',
  // RFC 3986 §6.2.3: an empty path is "/" (oidc-agent, git-credential-oauth register these).
  'http://127.0.0.1:4242',
  'http://127.0.0.1',
  'http://localhost:4242',
  'http://[::1]:4242',
  'http://127.0.0.1:8080?x=1',
];

const REFUSED: ReadonlyArray<[uri: string, reason: RegExp]> = [
  ['https://127.0.0.1:8080/callback', /fixed HTTPS callback/],
  ['https://app.example.com/callback', /fixed HTTPS callback/],
  ['HTTPS://app.example.com/callback', /fixed HTTPS callback/],
  ['http://app.example.com/callback', /not an accepted loopback host/],
  ['http://127.0.0.1.evil.com/callback', /not an accepted loopback host/],
  ['http://localhost.evil.com:8080/cb', /not an accepted loopback host/],
  ['http://localhost.:8080/cb', /not an accepted loopback host/],
  ['http://0x7f.0.0.1:8080/cb', /not an accepted loopback host/],
  ['http://127.1:8080/cb', /not an accepted loopback host/],
  ['http://2130706433:8080/cb', /not an accepted loopback host/],
  ['http://127.0.0.2:8080/cb', /not an accepted loopback host/],
  ['http://0.0.0.0:8080/cb', /not an accepted loopback host/],
  ['http://[::ffff:127.0.0.1]:8080/cb', /not an accepted loopback host/],
  ['http://[0:0:0:0:0:0:0:1]:8080/cb', /not an accepted loopback host/],
  ['http://%31%32%37.0.0.1:8080/cb', /not an accepted loopback host/],
  ['http://LOCALHOST:8080/cb', /not an accepted loopback host/],
  ['http://lоcalhost:8080/cb', /non-ASCII/],
  ['http://127.0.0.1:8080/callback#frag', /fragment/],
  ['http://127.0.0.1:8080/callback#', /fragment/],
  ['http://user@127.0.0.1:8080/cb', /user information/],
  ['http://user:pass@127.0.0.1:8080/cb', /user information/],
  ['http://evil.com@127.0.0.1:8080/cb', /user information/],
  ['http://127.0.0.1:8080@evil.com/cb', /user information/],
  ['http://127.0.0.1:8080\\@evil.com/cb', /user information/],
  ['myapp://callback', /scheme "myapp:"/],
  ['com.example.app:/oauth2redirect', /scheme "com.example.app:"/],
  ['javascript:alert(1)', /scheme "javascript:"/],
  ['file:///etc/passwd', /scheme "file:"/],
  ['ftp://127.0.0.1/cb', /scheme "ftp:"/],
  ['//127.0.0.1:8080/cb', /not an absolute URI/],
  ['/callback', /not an absolute URI/],
  ['', /is empty/],
  ['http://127.0.0.1:80', /canonical form; register "http:\/\/127.0.0.1\/"/],
  ['http://127.0.0.1:4242/.', /canonical form; register "http:\/\/127.0.0.1:4242\/"/],
  ['http://127.0.0.1:0/cb', /invalid port/],
  ['http://127.0.0.1:08080/cb', /invalid port/],
  ['http://127.0.0.1:65536/cb', /above 65535/],
  ['http://127.0.0.1:/cb', /invalid port/],
  ['http://127.0.0.1:80/cb', /canonical form; register "http:\/\/127.0.0.1\/cb"/],
  ['http://127.0.0.1:8080/a/../cb', /canonical form/],
  ['http://127.0.0.1:8080/./cb', /canonical form/],
  ['http://127.0.0.1:8080/%2e%2e/cb', /path with characters/],
  ['http://127.0.0.1:8080/cb%2Fevil', /path with characters/],
  ['http://127.0.0.1:8080/c b', /whitespace or control/],
  [' http://127.0.0.1:8080/cb', /whitespace or control/],
  ['http://127.0.0.1:8080/cb\n', /whitespace or control/],
  ['http://127.0.0.1:8080/cb\t', /whitespace or control/],
  ['http://127.0.0.1:8080/cb\u0000', /whitespace or control/],
  ['http://127.0.0.1:8080/cällback', /non-ASCII/],
  ['http://127.0.0.1:8080/cb?x=%zz', /malformed query/],
  ['http:127.0.0.1:8080/cb', /not an accepted loopback host/],
  ['http:/127.0.0.1:8080/cb', /not an accepted loopback host/],
];

describe('registration redirect URI policy', () => {
  for (const uri of ACCEPTED) {
    it(`accepts ${uri}`, () => {
      assert.equal(registrationRedirectUriProblem(uri, HOSTS), undefined);
    });
  }

  for (const [uri, reason] of REFUSED) {
    it(`refuses ${JSON.stringify(uri)}`, () => {
      const problem = registrationRedirectUriProblem(uri, HOSTS);
      assert.ok(problem, `${uri} must be refused`);
      assert.match(problem, reason);
      assert.ok(problem.includes(JSON.stringify(uri)), 'the reason names the refused URI');
      assert.match(problem, /http:\/\/127\.0\.0\.1:<port>\/<path>/);
      assert.match(problem, /registered integration arranged with the operator/);
    });
  }

  it('has at least 30 refusal cases and 10 acceptance cases', () => {
    assert.ok(REFUSED.length >= 30);
    assert.ok(ACCEPTED.length >= 10);
  });

  it('honours a narrowed set of loopback hosts', () => {
    const hosts = ['127.0.0.1'];
    assert.equal(registrationRedirectUriProblem('http://127.0.0.1:9/cb', hosts), undefined);
    const problem = registrationRedirectUriProblem('http://localhost:9/cb', hosts);
    assert.ok(problem);
    assert.match(problem, /not an accepted loopback host \(127\.0\.0\.1\)/);
    assert.doesNotMatch(problem, /localhost:<port>/);
  });
});

describe('redirect URI matching', () => {
  const registered = ['http://127.0.0.1:8080/callback', 'http://localhost/cb?app=1', 'http://[::1]:9/x'];
  const cases: ReadonlyArray<[requested: string, expected: string | undefined]> = [
    ['http://127.0.0.1:8080/callback', 'http://127.0.0.1:8080/callback'],
    ['http://127.0.0.1:51234/callback', 'http://127.0.0.1:8080/callback'],
    ['http://127.0.0.1/callback', 'http://127.0.0.1:8080/callback'],
    ['http://localhost:4000/cb?app=1', 'http://localhost/cb?app=1'],
    ['http://[::1]:5000/x', 'http://[::1]:9/x'],
    ['http://127.0.0.1:51234/callback/', undefined],
    ['http://127.0.0.1:51234/Callback', undefined],
    ['http://127.0.0.1:51234/callback?x=1', undefined],
    ['http://127.0.0.1:51234/callback#x', undefined],
    ['http://localhost:51234/callback', undefined],
    ['http://[::1]:51234/callback', undefined],
    ['https://127.0.0.1:8080/callback', undefined],
    ['http://127.0.0.1:0/callback', undefined],
    ['http://127.0.0.1:65536/callback', undefined],
    ['http://127.0.0.1:080/callback', undefined],
    ['http://user@127.0.0.1:8080/callback', undefined],
    ['http://127.0.0.1.evil.com:8080/callback', undefined],
    ['http://localhost:4000/cb?app=2', undefined],
    ['http://localhost:4000/cb', undefined],
    ['http://127.0.0.1:8080/a/../callback', undefined],
  ];
  for (const [requested, expected] of cases) {
    it(`${requested} → ${expected ?? 'no match'} (loopback: any port, RFC 8252 §7.3)`, () => {
      assert.equal(matchRedirectUri(requested, registered, 'dynamic'), expected);
    });
  }

  it('a path-less loopback URI equals the one with "/" (RFC 3986 §6.2.3), at any port', () => {
    for (const registeredUri of ['http://127.0.0.1', 'http://127.0.0.1:4242', 'http://127.0.0.1/']) {
      for (const requested of [
        'http://127.0.0.1:4242',
        'http://127.0.0.1:51234',
        'http://127.0.0.1:51234/',
      ]) {
        assert.equal(matchRedirectUri(requested, [registeredUri], 'dynamic'), registeredUri, requested);
      }
      assert.equal(matchRedirectUri('http://127.0.0.1:51234/cb', [registeredUri], 'dynamic'), undefined);
      assert.equal(matchRedirectUri('http://localhost:51234', [registeredUri], 'dynamic'), undefined);
      assert.equal(matchRedirectUri('http://127.0.0.1:51234?x=1', [registeredUri], 'dynamic'), undefined);
    }
    assert.equal(
      matchRedirectUri('http://localhost:8080', ['http://localhost:4242'], 'dynamic'),
      'http://localhost:4242',
    );
    assert.equal(matchRedirectUri('http://[::1]:8080/', ['http://[::1]'], 'dynamic'), 'http://[::1]');
    assert.equal(matchRedirectUri('http://127.0.0.1:0', ['http://127.0.0.1'], 'dynamic'), undefined);
    assert.equal(matchRedirectUri('http://127.0.0.1:80', ['http://127.0.0.1'], 'dynamic'), undefined);
  });

  it('integrations match by exact string only', () => {
    const uris = ['https://app.example.com/cb', 'http://127.0.0.1:8080/cb'];
    assert.equal(matchRedirectUri('https://app.example.com/cb', uris, 'integration'), uris[0]);
    assert.equal(matchRedirectUri('https://app.example.com/cb/', uris, 'integration'), undefined);
    assert.equal(matchRedirectUri('https://app.example.com:443/cb', uris, 'integration'), undefined);
    assert.equal(matchRedirectUri('http://127.0.0.1:9/cb', uris, 'integration'), undefined);
    assert.equal(matchRedirectUri('http://127.0.0.1:8080/cb', uris, 'integration'), uris[1]);
  });
});
