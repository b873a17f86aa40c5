import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_NAMES, nameStatement, statementName } from '../../src/storage/statement-names.js';

describe('statement names', () => {
  it('keeps a text’s name, and sends texts past MAX_NAMES unnamed', () => {
    // Each test file runs in a process of its own: this one's names are only the test's.
    assert.equal(nameStatement('select 1'), true);
    const first = statementName('select 1');
    assert.ok(first);
    assert.equal(nameStatement('select 1'), true);
    assert.equal(statementName('select 1'), first, 'the same text, the same name');
    for (let i = 2; i <= MAX_NAMES; i++) assert.equal(nameStatement(`select ${i}`), true);
    assert.equal(
      new Set(Array.from({ length: MAX_NAMES }, (_, i) => statementName(`select ${i + 1}`))).size,
      MAX_NAMES,
    );
    assert.equal(nameStatement('select 0'), false, 'one text more than MAX_NAMES');
    assert.equal(statementName('select 0'), undefined);
    assert.equal(statementName('select 1'), first, 'a named text stays named');
  });
});
