/**
 * The store contract (docs/architecture.md "The store"): everything the layers above
 * src/storage/ ask of the database, as operations each of which is whole on its own: atomic,
 * with its reads, checks and writes inside it. Two backends implement it, sqlite/store.ts and
 * postgres/store.ts; test/store/ runs one contract suite against both. Nothing above
 * src/storage/ knows which one it has (.dependency-cruiser.cjs "backend-choice-in-storage").
 *
 * Each section is declared in contract/ and named for what it holds.
 */
import type { DeviceAuthorizations } from './contract/device-authorizations.js';
import type { Instances } from './contract/instances.js';

export interface Store {
  readonly instances: Instances;
  readonly deviceAuthorizations: DeviceAuthorizations;
}
