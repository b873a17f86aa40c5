/**
 * The `html` tagged template: every interpolated value is HTML-escaped unless it is itself the
 * result of `html` (so fragments compose). Arrays are joined, each element treated the same way.
 * `undefined`, `null` and `false` render as nothing, so `${cond && html`…`}` reads naturally.
 */

const SAFE = Symbol('safe-html');

export interface SafeHtml {
  readonly [SAFE]: true;
  readonly value: string;
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && SAFE in value;
}

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (isSafe(value)) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Trusted markup: only for constant strings written in this codebase. */
export function unsafeRaw(markup: string): SafeHtml {
  return { [SAFE]: true, value: markup };
}

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return unsafeRaw(out);
}
