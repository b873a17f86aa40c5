import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveResource } from '../../src/oauth/resource.js';

const ISSUER = 'http://127.0.0.1:3000';

describe('resource indicators (RFC 8707)', () => {
  const accepted: ReadonlyArray<[string | undefined, string]> = [
    [undefined, ISSUER],
    [ISSUER, ISSUER],
    [`${ISSUER}/`, ISSUER],
  ];
  for (const [value, resource] of accepted) {
    it(`${JSON.stringify(value)} resolves to the canonical issuer`, () => {
      assert.deepEqual(resolveResource(value, ISSUER), { resource });
    });
  }

  const refused: ReadonlyArray<[string, RegExp]> = [
    ['', /not an absolute URI/],
    ['api', /not an absolute URI/],
    ['/api/v1', /not an absolute URI/],
    [`${ISSUER}#x`, /fragment/],
    [`${ISSUER}/#`, /fragment/],
    ['https://api.example.com', /not an API this server protects/],
    [`${ISSUER}/api/v1`, /not an API this server protects/],
    ['http://127.0.0.1:3001', /not an API this server protects/],
    ['http://localhost:3000', /not an API this server protects/],
    [`${ISSUER}//`, /not an API this server protects/],
    [`${ISSUER}?x=1`, /not an API this server protects/],
    ['urn:example:api', /not an API this server protects/],
  ];
  for (const [value, reason] of refused) {
    it(`${JSON.stringify(value)} is refused with a reason for invalid_target`, () => {
      const result = resolveResource(value, ISSUER);
      assert.ok('error' in result);
      assert.match(result.error, reason);
      assert.match(result.error, new RegExp(`send resource=${ISSUER}`));
    });
  }
});
