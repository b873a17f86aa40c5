/**
 * Submits schoolauth's sign-in and consent pages as a person would: the page's form with its
 * hidden fields (CSRF token, request parameters), the email and password filled in, the
 * checkboxes left as the page checked them (the consent page's scopes, each one a checkbox
 * checked by default; a disabled one is not sent), and the button whose label says Sign in or Allow.
 */
import type { CookieJar, HttpResult } from './http-client.js';
import { http } from './http-client.js';

export interface Credentials {
  readonly email: string;
  readonly password: string;
}

const FORM = /<form\b([^>]*)>([\s\S]*?)<\/form>/gi;
const INPUT = /<input\b([^>]*)>/gi;
const BUTTON = /<button\b([^>]*)>([\s\S]*?)<\/button>/gi;

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attributes);
  const raw = match ? (match[1] ?? match[2] ?? match[3]) : undefined;
  return raw === undefined ? undefined : decodeEntities(raw);
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

interface ParsedForm {
  readonly action: string;
  readonly fields: Record<string, string>;
  /** Checked, enabled checkboxes: name and value, a name once per box. */
  readonly checked: Array<[string, string]>;
  readonly buttons: Array<{ name?: string; value?: string; label: string }>;
}

function parseForms(html: string): ParsedForm[] {
  return [...html.matchAll(FORM)].map(([, attributes = '', inner = '']) => {
    const fields: Record<string, string> = {};
    const checked: Array<[string, string]> = [];
    for (const [, input = ''] of inner.matchAll(INPUT)) {
      const name = attribute(input, 'name');
      const type = (attribute(input, 'type') ?? 'text').toLowerCase();
      if (name && type === 'checkbox') {
        if (/\bchecked\b/i.test(input) && !/\bdisabled\b/i.test(input))
          checked.push([name, attribute(input, 'value') ?? 'on']);
      } else if (name && type !== 'submit') fields[name] = attribute(input, 'value') ?? '';
    }
    const buttons = [...inner.matchAll(BUTTON)].map(([, button = '', label = '']) => ({
      name: attribute(button, 'name'),
      value: attribute(button, 'value'),
      label: label.replace(/<[^>]*>/g, '').trim(),
    }));
    return { action: attribute(attributes, 'action') ?? '', fields, checked, buttons };
  });
}

const AGREE = /^(sign in|allow)$/i;

/** Submits the form of a sign-in or consent page and returns the answer. */
export async function submitPage(page: HttpResult, jar: CookieJar, who: Credentials): Promise<HttpResult> {
  const forms = parseForms(page.body);
  for (const form of forms) {
    const button = form.buttons.find((b) => AGREE.test(b.label));
    if (!button) continue;
    const fields = { ...form.fields };
    if ('email' in fields) fields.email = who.email;
    if ('password' in fields) fields.password = who.password;
    if (button.name) fields[button.name] = button.value ?? '';
    const pairs: Array<[string, string]> = [...Object.entries(fields), ...form.checked];
    return http(new URL(form.action || page.url, page.url).toString(), { method: 'POST', form: pairs, jar });
  }
  throw new Error(`no sign-in or consent form on ${page.url}: ${page.body.slice(0, 300)}`);
}
