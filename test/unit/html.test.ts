import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readParams } from '../../src/oauth/authorize/params.js';
import { escapeHtml, html } from '../../src/pages/html.js';

describe('html template', () => {
  it('escapes every interpolation', () => {
    const evil = `"><script>alert('x')</script>&\``;
    const out = html`<p title="${evil}">${evil}</p>`.value;
    assert.equal(out, `<p title="${escapeHtml(evil)}">${escapeHtml(evil)}</p>`);
    assert.doesNotMatch(out, /<script|"><|'x'/);
  });

  it('composes fragments without escaping them twice, joins arrays, drops empty values', () => {
    const items = ['a<b', 'c&d'].map((s) => html`<li>${s}</li>`);
    const out = html`<ul>${items}</ul>${undefined}${null}${false}${0}`.value;
    assert.equal(out, '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>0');
  });
});

describe('authorization request parameters', () => {
  it('keeps known single parameters, ignores unknown ones and empty values', () => {
    const read = readParams({ client_id: 'c', state: '', foo: 'bar', scope: 'openid' });
    assert.deepEqual(read.values, { client_id: 'c', scope: 'openid' });
    assert.deepEqual(read.repeated, []);
  });

  it('reports repeated parameters (RFC 6749 §3.1)', () => {
    const read = readParams({ scope: ['openid', 'email'], state: ['x', ''] });
    assert.deepEqual(read.repeated, ['scope']);
    assert.equal(read.values.state, 'x');
  });
});
