/**
 * School API fields that hold a URL a page may link to or load (a logo, a file, a meeting link,
 * a lesson's media). A school front end renders them as `href`/`src`, so a `javascript:` or
 * `data:` value would run script on its origin: only absolute https URLs are accepted (http too
 * when this server itself runs on a loopback http issuer, so local upload URLs work).
 *
 * Two JSON Schema formats, checked by Ajv (http/validation.ts) and published in /openapi.json:
 * - `https-url`: an absolute https URL, or "" for none;
 * - `text-or-https-url`: free text (a place, a Markdown body), but a value that begins like a URL
 *   must begin with an accepted https URL (textOrUrlAccepted).
 */
import { type TSchema, Type } from '@sinclair/typebox';

export const HTTPS_URL_FORMAT = 'https-url';
export const TEXT_OR_HTTPS_URL_FORMAT = 'text-or-https-url';

/** What a refusal says (http/error-handler.ts), after the field name. */
export const URL_FIELD_RULES: Readonly<Record<string, string>> = {
  [HTTPS_URL_FORMAT]:
    'must be an absolute https URL such as "https://example.com/logo.png", or "" for none; javascript:, data: and other schemes are refused (http only on a loopback development server)',
  [TEXT_OR_HTTPS_URL_FORMAT]:
    'begins with a URL that is not an absolute https URL; javascript:, data: and other schemes are refused (http only on a loopback development server): write an https URL or plain text',
};

// A scheme (RFC 3986 §3.1) and what directly follows its colon.
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(\S?)/;
// Schemes that run or embed content wherever they are followed: refused even as "javascript: x".
const ACTIVE_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'file', 'blob']);
// One URL as written: no whitespace, control, format or separator character anywhere.
const URL_SHAPE = /^https?:\/\/[^\s\p{Cc}\p{Cf}\u2028\u2029]+$/iu;

/**
 * The value as a browser's URL parser reads it (WHATWG URL: tabs and newlines dropped anywhere,
 * leading C0 controls and spaces too); every control and space is dropped here, to err on the
 * side of reading a URL.
 */
function asBrowserReads(value: string): string {
  return value.replace(/[\t\n\r]/g, '').replace(/^[\p{Cc}\s]+/u, '');
}

/** Whether `value` is an absolute https URL (or http, when `allowHttp`) without credentials. */
function isAcceptedUrl(value: string, allowHttp: boolean): boolean {
  if (!URL_SHAPE.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '' || url.hostname === '') return false;
  return url.protocol === 'https:' || (allowHttp && url.protocol === 'http:');
}

/**
 * Text, unless it begins like a URL: an http(s) URL must then be an accepted one, an active scheme
 * (javascript:, data:, …) is refused, and any other scheme counts as a URL only when its colon is
 * directly followed by more ("mailto:a@b", "zoom:123" are refused; "Room: 101" is text).
 */
function textOrUrlAccepted(value: string, allowHttp: boolean): boolean {
  const match = SCHEME.exec(asBrowserReads(value));
  if (!match) return true;
  const scheme = match[1]!.toLowerCase();
  if (scheme === 'https' || scheme === 'http') {
    return isAcceptedUrl(value.trimStart().split(/\s/)[0]!, allowHttp);
  }
  return !ACTIVE_SCHEMES.has(scheme) && match[2] === '';
}

/** Ajv format checks, given whether http URLs are accepted (a loopback http issuer). */
export function urlFormats(allowHttp: boolean): Record<string, (value: string) => boolean> {
  return {
    [HTTPS_URL_FORMAT]: (value) => value === '' || isAcceptedUrl(value, allowHttp),
    [TEXT_OR_HTTPS_URL_FORMAT]: (value) => textOrUrlAccepted(value, allowHttp),
  };
}

/** The schema of a URL field (`https-url`). */
export function httpsUrlSchema(description: string): TSchema {
  return Type.String({
    description: `${description}. An absolute https URL, or "" for none`,
    format: HTTPS_URL_FORMAT,
    maxLength: 2000,
  });
}
