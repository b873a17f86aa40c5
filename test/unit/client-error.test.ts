import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { clientErrorAnswerer } from '../../src/http/client-error.js';

/** What the answerer writes to a socket for a parser error. */
function answer(code: string, rawPacket?: Buffer, hsts = false): string {
  let written = '';
  const socket = {
    writable: true,
    end: (text: string) => {
      written = text;
    },
  } as unknown as Socket;
  clientErrorAnswerer(hsts)(Object.assign(new Error('parse error'), { code, rawPacket }), socket);
  return written;
}

describe("answers to what Node's parser refuses", () => {
  it('a request line over the URL limit is 414, oversized headers are 431', () => {
    assert.match(
      answer('HPE_HEADER_OVERFLOW', Buffer.from(`GET /?q=${'a'.repeat(9000)}`)),
      /^HTTP\/1\.1 414 /,
    );
    const headers = Buffer.from(`GET / HTTP/1.1\r\nX-Big: ${'b'.repeat(20_000)}`);
    assert.match(answer('HPE_HEADER_OVERFLOW', headers), /^HTTP\/1\.1 431 /);
    assert.match(answer('HPE_HEADER_OVERFLOW'), /^HTTP\/1\.1 431 /);
  });

  it('a request that did not arrive in time is 408; other parse errors are 400', () => {
    assert.match(answer('ERR_HTTP_REQUEST_TIMEOUT'), /^HTTP\/1\.1 408 /);
    assert.match(answer('HPE_INVALID_METHOD'), /^HTTP\/1\.1 400 /);
  });

  it('every answer is the JSON error with the common headers; HSTS only for an https issuer', () => {
    const plain = answer('HPE_INVALID_METHOD');
    const [head, body] = plain.split('\r\n\r\n');
    assert.match(head!, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    assert.match(head!, /\r\nX-Content-Type-Options: nosniff\r\n/);
    assert.match(head!, /\r\nX-Request-Id: [0-9a-f]{12}-[0-9a-z]+\r\n/);
    assert.doesNotMatch(head!, /Strict-Transport-Security/);
    assert.deepEqual(Object.keys(JSON.parse(body!)), ['error', 'error_description']);
    assert.match(
      answer('HPE_INVALID_METHOD', undefined, true),
      /\r\nStrict-Transport-Security: max-age=31536000\r\n/,
    );
  });
});
