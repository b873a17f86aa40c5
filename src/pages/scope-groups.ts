/**
 * Scopes as a person reads them: plain words, grouped by area (docs/clients.md "Sign-in, consent and Connected apps"), areas in a fixed order.
 */
import { AREA_TITLES, type ScopeArea, scopeInfo } from '../oauth/scope-catalogue.js';

export interface ScopeGroup {
  readonly title: string;
  readonly items: readonly { readonly name: string; readonly description: string }[];
}

const AREA_ORDER = Object.keys(AREA_TITLES) as ScopeArea[];

export function groupScopes(scopes: readonly string[]): ScopeGroup[] {
  const byArea = new Map<ScopeArea, Array<{ name: string; description: string }>>();
  for (const name of scopes) {
    const info = scopeInfo(name);
    if (!info) continue;
    const list = byArea.get(info.area) ?? [];
    list.push({ name, description: info.description });
    byArea.set(info.area, list);
  }
  return AREA_ORDER.filter((area) => byArea.has(area)).map((area) => ({
    title: AREA_TITLES[area],
    items: byArea.get(area)!,
  }));
}
