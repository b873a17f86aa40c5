import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consentRequiredDescription, judgeConsent } from '../../src/oauth/authorize/consent-policy.js';
import type { PromptValue } from '../../src/oauth/authorize/validate.js';

const PUBLIC = { token_endpoint_auth_method: 'none' } as const;
const CONFIDENTIAL = { token_endpoint_auth_method: 'client_secret_post' } as const;
const request = (scope: string, prompt: PromptValue[] = []) => ({
  scopes: scope.split(' '),
  prompt: new Set(prompt),
});
const allowed = { scopes: 'openid courses:read courses:write' };

describe('remembered consent (RFC 8252 §8.6)', () => {
  it('answers a confidential client silently for the same or fewer scopes', () => {
    assert.deepEqual(judgeConsent(CONFIDENTIAL, allowed, request('courses:read')), {
      remembered: true,
      silent: true,
    });
  });

  it('never answers a public client silently, even for scopes it was allowed', () => {
    assert.deepEqual(judgeConsent(PUBLIC, allowed, request('courses:read')), {
      remembered: true,
      silent: false,
    });
  });

  it('asks everyone again for more scopes, without consent, or with prompt=consent', () => {
    for (const client of [PUBLIC, CONFIDENTIAL]) {
      assert.equal(judgeConsent(client, allowed, request('courses:read orders:read')).silent, false);
      assert.equal(judgeConsent(client, undefined, request('openid')).silent, false);
      assert.equal(judgeConsent(client, allowed, request('openid', ['consent'])).silent, false);
    }
  });

  it('tells a public client with remembered consent why prompt=none cannot work', () => {
    const judgement = judgeConsent(PUBLIC, allowed, request('openid', ['none']));
    assert.match(consentRequiredDescription(judgement), /public client.*RFC 8252 §8\.6.*without prompt=none/);
    assert.match(
      consentRequiredDescription(judgeConsent(PUBLIC, undefined, request('openid'))),
      /has not allowed this app these scopes/,
    );
  });
});
