/**
 * Text a person reads on our pages or in a listing, chosen by whoever registered a client (its
 * name, URLs, contacts, software id): no character that renders invisibly or rearranges what is
 * shown — Unicode Cc (C0 and C1 controls such as U+009B, DEL), Cf (bidi overrides such as
 * U+202E, zero-width characters, soft hyphen, BOM) and the line and paragraph separators
 * U+2028/U+2029 (Unicode TR #36 §2, "bidirectional text spoofing"). Letters of every script,
 * accents and symbols stay accepted unchanged.
 *
 * A name (client name, account or school name) must moreover show something: a name made only of
 * characters that render blank — spaces, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the
 * Braille blank U+2800 — looks like no name at all on the consent page and in Connected apps
 * (Unicode TR #36 §2, "inadequate rendering support"; UTS #39 §3.3 on default-ignorables).
 */

/** The JSON Schema `pattern` (ECMA-262 with the `u` flag, as Ajv compiles it) for display text. */
export const DISPLAY_TEXT_PATTERN = '^[^\\p{Cc}\\p{Cf}\\u2028\\u2029]*$';

const REFUSED = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** What a refusal says is refused, after naming the character. */
const DISPLAY_TEXT_RULE =
  'control, format (bidi override, zero-width) and line/paragraph separator characters are refused in display text; send the text without them';

/** The first refused character as "U+XXXX", if any. */
function refusedCharacter(value: string): string | undefined {
  const found = REFUSED.exec(value)?.[0];
  if (found === undefined) return undefined;
  return `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A description naming the field and the refused character, or undefined for acceptable text. */
export function displayTextProblem(field: string, value: string): string | undefined {
  const character = refusedCharacter(value);
  return character && `${field} contains ${character}: ${DISPLAY_TEXT_RULE}`;
}

/**
 * Characters that show nothing on their own: White_Space and the space separators, every
 * Default_Ignorable_Code_Point (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, zero-width and
 * bidi controls, variation selectors, tags), controls and format characters — and the two blank
 * symbols that are none of these, U+2800 BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL
 * NOTEHEAD.
 */
const BLANK = /[\p{White_Space}\p{Z}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\u2800\u{1D159}]/gu;

/** True when `value` has no character that shows (empty, spaces only, fillers only, …). */
export function isBlankText(value: string): boolean {
  return value.replace(BLANK, '') === '';
}

/**
 * A description for a name that shows nothing, naming the field and its first character, or
 * undefined for a name with at least one visible character.
 */
export function blankNameProblem(field: string, value: string): string | undefined {
  if (!isBlankText(value)) return undefined;
  if (value.trim() === '') return `${field} must not be empty; send a name people can read`;
  const first = `U+${value.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `${field} shows nothing: it holds only blank or invisible characters (the first is ${first}; spaces, Hangul fillers such as U+3164, the Braille blank U+2800 and other default-ignorable characters do not count); send a name with at least one visible letter, digit or symbol`;
}
