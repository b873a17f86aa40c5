import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HTTPS_URL_FORMAT, TEXT_OR_HTTPS_URL_FORMAT, urlFormats } from '../../src/school/url-fields.js';

const onHttps = urlFormats(false);
const onLoopbackHttp = urlFormats(true);

describe('school API URL formats (issue 19 §6)', () => {
  const url = onHttps[HTTPS_URL_FORMAT]!;
  const textOrUrl = onHttps[TEXT_OR_HTTPS_URL_FORMAT]!;

  it('https-url: an absolute https URL or "" only', () => {
    for (const ok of [
      '',
      'https://example.com',
      'https://example.com/a/b.png?x=1#top',
      'HTTPS://EXAMPLE.COM/x',
    ]) {
      assert.equal(url(ok), true, ok);
    }
    for (const bad of [
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'http://example.com/logo.png',
      'https:example.com',
      'https://u:p@example.com/',
      'https://example.com/a b',
      'https://example.com/\u202e',
      ' https://example.com',
      '//example.com/logo.png',
      '/uploads/x.png',
    ]) {
      assert.equal(url(bad), false, bad);
    }
  });

  it('https-url accepts http only on a loopback http issuer', () => {
    assert.equal(onLoopbackHttp[HTTPS_URL_FORMAT]!('http://127.0.0.1:3000/uploads/upl_1/a.png'), true);
    assert.equal(onLoopbackHttp[HTTPS_URL_FORMAT]!('javascript:alert(1)'), false);
  });

  it('text-or-https-url: text stays text; a leading URL must be https; active schemes never pass', () => {
    for (const ok of [
      '',
      'Online',
      'Room: 101',
      'Hall 2, 10:30',
      'https://meet.example.com/x',
      'https://a.example is the page',
    ]) {
      assert.equal(textOrUrl(ok), true, ok);
    }
    for (const bad of [
      'javascript:alert(1)',
      'javascript: alert(1)',
      ' \u0001javascript:alert(1)',
      'java\nscript:alert(1)',
      'DATA:text/html,x',
      'vbscript:x',
      'mailto:a@example.com',
      'http://example.com/meeting',
      'https://u:p@example.com/',
    ]) {
      assert.equal(textOrUrl(bad), false, JSON.stringify(bad));
    }
  });
});
