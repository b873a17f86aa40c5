import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readView, writeDecision } from '../../src/api/policy.js';

describe('school API role policy', () => {
  it('members read everything; others see the public view, or nothing where there is none', () => {
    assert.equal(readView('owner', false), 'member');
    assert.equal(readView('admin', true), 'member');
    assert.equal(readView(null, true), 'public');
    assert.equal(readView(null, false), 'denied');
  });

  it('owners and admins write by default; owner-only families refuse admins; outsiders never write', () => {
    assert.equal(writeDecision('owner'), 'allowed');
    assert.equal(writeDecision('admin'), 'allowed');
    assert.equal(writeDecision('admin', ['owner']), 'role');
    assert.equal(writeDecision(null), 'not_member');
    assert.equal(writeDecision(null, ['owner']), 'not_member');
  });
});
