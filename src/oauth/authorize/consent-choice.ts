/**
 * What the person chose on the consent page (docs/decisions.md "Consent"). Every requested scope
 * is a tick box, ticked when the page opens; `openid` cannot be unticked (it only says who the
 * person is and the app asked for a sign-in). Scopes the person allowed this app before are
 * listed apart and not asked about again (incremental authorization). The grant is what was
 * ticked plus what was allowed before, never more than the request (RFC 6749 §3.3: the token
 * response's `scope` says what was granted).
 *
 * The form comes back from the browser, so nothing in it is trusted: a ticked scope the request
 * did not ask for is a forged form and allows nothing.
 */
import { inCatalogueOrder, isWriteScope, splitScope } from '../scopes.js';

/** The tick boxes' field name; each box's value is a scope name. */
export const GRANT_FIELD = 'grant_scope';

/** The `decision` values of the consent form; any other value denies. */
export const DECISIONS = { allow: 'allow', readOnly: 'allow-read-only' } as const;

/** The scope that is always granted when requested (no tick box to untick). */
export const ALWAYS_GRANTED = 'openid';

export type ConsentChoice =
  | { readonly grant: readonly string[]; readonly added: readonly string[] }
  | { readonly forged: string }
  | { readonly empty: true };

/** The requested scopes the person allowed this app before (the remembered consent). */
export function alreadyAllowed(requested: readonly string[], remembered: string | undefined): string[] {
  const before = new Set(splitScope(remembered ?? ''));
  return requested.filter((s) => before.has(s));
}

/** Whether a set of scopes to ask about mixes scopes that change data with ones that do not. */
export function mixesReadAndWrite(scopes: readonly string[]): boolean {
  return scopes.some(isWriteScope) && scopes.some((s) => !isWriteScope(s));
}

/** Every scope name in the submitted tick-box field(s): a browser repeats the field per box. */
function submittedScopes(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((v) => (typeof v === 'string' ? splitScope(v) : ['']));
}

export function readConsentChoice(input: {
  readonly requested: readonly string[];
  readonly already: readonly string[];
  readonly submitted: unknown;
  readonly readOnly: boolean;
}): ConsentChoice {
  const requested = new Set(input.requested);
  const ticked = submittedScopes(input.submitted);
  const foreign = ticked.find((s) => !requested.has(s));
  if (foreign !== undefined) return { forged: foreign };
  let chosen = ticked;
  if (requested.has(ALWAYS_GRANTED)) chosen.push(ALWAYS_GRANTED);
  if (input.readOnly) chosen = chosen.filter((s) => !isWriteScope(s));
  const grant = inCatalogueOrder([...input.already, ...chosen]);
  if (grant.length === 0) return { empty: true };
  const before = new Set(input.already);
  return { grant, added: grant.filter((s) => !before.has(s)) };
}
