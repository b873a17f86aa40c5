import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blankNameProblem, displayTextProblem, isBlankText } from '../../src/display-text.js';

/** Names that render as nothing: spaces, fillers and default-ignorable characters only. */
const BLANK_NAMES: ReadonlyArray<[what: string, name: string]> = [
  ['the Hangul filler U+3164', '\u3164'],
  ['the Braille blank U+2800', '\u2800\u2800'],
  ['the Hangul choseong filler U+115F', '\u115f'],
  ['the Hangul jungseong filler U+1160', '\u1160'],
  ['the halfwidth Hangul filler U+FFA0', '\uffa0'],
  ['a mix of fillers and ordinary spaces', ' \u3164 \u2800 '],
  ['the ideographic space U+3000', '\u3000'],
  ['a no-break space', '\u00a0'],
  ['the Khmer inherent vowel U+17B5', '\u17b5'],
  ['the Mongolian vowel separator U+180E', '\u180e'],
  ['a variation selector', '\ufe0f'],
  ['the musical null notehead U+1D159', '\u{1d159}'],
  ['an empty string', ''],
];

describe('display text: names that show nothing', () => {
  for (const [what, name] of BLANK_NAMES) {
    it(`a name of ${what} is blank and refused naming the field`, () => {
      assert.equal(isBlankText(name), true);
      const problem = blankNameProblem('client_name', name);
      assert.ok(problem?.startsWith('client_name '), problem);
      assert.match(problem!, /send a name/);
    });
  }

  it('a name of invisible characters names the first one and says what to send', () => {
    assert.equal(
      blankNameProblem('client_name', '\u3164'),
      'client_name shows nothing: it holds only blank or invisible characters (the first is U+3164; spaces, Hangul fillers such as U+3164, the Braille blank U+2800 and other default-ignorable characters do not count); send a name with at least one visible letter, digit or symbol',
    );
    assert.equal(blankNameProblem('--name', '  '), '--name must not be empty; send a name people can read');
  });

  it('names with one visible character pass, in every script, fillers inside a word included', () => {
    for (const name of [
      'a',
      'ㄱ',
      '日本語',
      'مدرسة',
      '🚀',
      '\u3164Maths CLI',
      '\u2800x',
      '\u115f\u1161', // an old-Hangul syllable: choseong filler + vowel
      'é',
    ]) {
      assert.equal(isBlankText(name), false, name);
      assert.equal(blankNameProblem('client_name', name), undefined, name);
    }
  });

  it('the fillers are letters or symbols, so the character rule alone lets them through', () => {
    for (const [, name] of BLANK_NAMES.filter(([, n]) => /[\u3164\u2800\u115f\u1160\uffa0]/.test(n)))
      assert.equal(displayTextProblem('client_name', name), undefined);
  });
});
