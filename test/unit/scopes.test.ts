import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SCOPE_NAMES } from '../../src/oauth/scope-catalogue.js';
import { formatScope, isSubset, parseScope } from '../../src/oauth/scopes.js';

describe('scope parsing (RFC 6749 §3.3)', () => {
  const ok: ReadonlyArray<[string, string[]]> = [
    ['openid', ['openid']],
    ['openid profile email', ['openid', 'profile', 'email']],
    ['email openid', ['openid', 'email']],
    ['courses:write openid courses:read', ['openid', 'courses:read', 'courses:write']],
    ['openid openid profile', ['openid', 'profile']],
    ['openid  profile', ['openid', 'profile']],
    [' openid profile ', ['openid', 'profile']],
    // OIDC Core §11: accepted and ignored, every grant gets a refresh token (oidc-agent, MCP SDK).
    ['openid offline_access', ['openid']],
    ['offline_access profile offline_access openid', ['openid', 'profile']],
  ];
  for (const [value, scopes] of ok) {
    it(`${JSON.stringify(value)} → ${scopes.join(' ')} (catalogue order, duplicates collapsed)`, () => {
      assert.deepEqual(parseScope(value), { scopes });
    });
  }

  it('all 38 catalogue scopes parse, in catalogue order', () => {
    assert.deepEqual(parseScope([...SCOPE_NAMES].reverse().join(' ')), { scopes: [...SCOPE_NAMES] });
  });

  const bad: ReadonlyArray<[string | undefined, RegExp]> = [
    [undefined, /missing/],
    ['', /missing/],
    ['   ', /missing/],
    ['openid\tprofile', /single spaces/],
    ['openid\nprofile', /single spaces/],
    ['openid,profile', /unknown scope "openid,profile"/],
    ['offline_access', /offline_access alone names no scope/],
    [' offline_access  offline_access', /offline_access alone names no scope/],
    ['OFFLINE_ACCESS openid', /unknown scope "OFFLINE_ACCESS"/],
    ['courses:admin', /unknown scope "courses:admin"/],
    ['OPENID', /unknown scope "OPENID"/],
    ['openid "x"', /single spaces/],
    ['openid\\x', /single spaces/],
    ['openid é', /single spaces/],
  ];
  for (const [value, reason] of bad) {
    it(`${JSON.stringify(value)} is refused`, () => {
      const parsed = parseScope(value);
      assert.ok('error' in parsed);
      assert.match(parsed.error, reason);
    });
  }

  it('narrowing is a subset; widening is not', () => {
    const granted = ['openid', 'profile', 'courses:read'];
    assert.equal(isSubset(['openid'], granted), true);
    assert.equal(isSubset(['openid', 'courses:read'], granted), true);
    assert.equal(isSubset(granted, granted), true);
    assert.equal(isSubset([], granted), true);
    assert.equal(isSubset(['courses:write'], granted), false);
    assert.equal(isSubset(['openid', 'email'], granted), false);
  });

  it('formats a list as space-separated names', () => {
    assert.equal(formatScope(['openid', 'profile']), 'openid profile');
    assert.equal(formatScope([]), '');
  });
});
