import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBasicAuthorization } from '../../src/oauth/basic-auth.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('HTTP Basic client credentials (RFC 6749 §2.3.1)', () => {
  const read: ReadonlyArray<[header: string, clientId: string, clientSecret: string]> = [
    [`Basic ${b64('dyn_abc:sa_cs_x')}`, 'dyn_abc', 'sa_cs_x'],
    [`basic ${b64('dyn_abc:sa_cs_x')}`, 'dyn_abc', 'sa_cs_x'],
    [`BASIC   ${b64('dyn_abc:sa_cs_x')}  `, 'dyn_abc', 'sa_cs_x'],
    // Form-urlencoded before base64: "%3A" is a colon inside the id, "+" a space.
    [`Basic ${b64('a%3Ab+c:p%25+q')}`, 'a:b c', 'p% q'],
    [`Basic ${b64('dyn_abc:se:cret')}`, 'dyn_abc', 'se:cret'],
    [`Basic ${b64('dyn_abc:')}`, 'dyn_abc', ''],
    [`Basic ${b64('dyn_abc:x').replace(/=+$/, '')}`, 'dyn_abc', 'x'],
    [`Basic ${b64('caf%C3%A9:x')}`, 'café', 'x'],
    [`Basic ${b64('café:x')}`, 'café', 'x'],
  ];
  for (const [header, clientId, clientSecret] of read) {
    it(`reads ${JSON.stringify(header)}`, () => {
      assert.deepEqual(parseBasicAuthorization(header), { kind: 'basic', clientId, clientSecret });
    });
  }

  const refused: ReadonlyArray<[header: string, reason: RegExp]> = [
    ['', /malformed/],
    ['Basic', /not valid base64/],
    ['Basic ', /not valid base64/],
    ['Basic a', /not valid base64/],
    ['Basic ****', /not valid base64/],
    ['Basic ZGVm=OmFiYw==', /not valid base64/],
    [`Basic ${b64('a:b')},Basic ${b64('c:d')}`, /not valid base64/],
    [`Basic ${Buffer.from([0xc3, 0x28, 0x3a]).toString('base64')}`, /UTF-8/],
    [`Basic ${b64('nocolon')}`, /no ":"/],
    [`Basic ${b64(':secret')}`, /empty client_id/],
    [`Basic ${b64('a%2:b')}`, /percent-encoding/],
    [`Basic ${b64('a:%E0%A4%A')}`, /percent-encoding/],
    ['Bearer sa_at_x', /"Bearer" scheme/],
    ['Digest username="x"', /"Digest" scheme/],
    [' ', /malformed/],
    ['Basic\tZGVm', /malformed/],
  ];
  for (const [header, reason] of refused) {
    it(`refuses ${JSON.stringify(header)}`, () => {
      const parsed = parseBasicAuthorization(header);
      assert.equal(parsed.kind, 'malformed');
      assert.ok(parsed.kind === 'malformed');
      assert.match(parsed.description, reason);
      assert.match(parsed.description, /RFC 6749 §2\.3\.1/);
    });
  }
});
