/**
 * Text a person reads on our pages or in a listing, chosen by whoever registered a client (its
 * name, URLs, contacts, software id): no character that renders invisibly or rearranges what is
 * shown — Unicode Cc (C0 and C1 controls such as U+009B, DEL), Cf (bidi overrides such as
 * U+202E, zero-width characters, soft hyphen, BOM) and the line and paragraph separators
 * U+2028/U+2029 (Unicode TR #36 §2, "bidirectional text spoofing"). Letters of every script,
 * accents and symbols stay accepted unchanged.
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
