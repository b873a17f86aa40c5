/** A person's apps as Connected apps shows them: remembered consents and live grants. */
import type { ConnectionRow } from '../connected-apps.repository.js';

export type { ConnectionRow };

export interface ConnectedApps {
  /** The account's consents and live grants, one entry per client. */
  of(accountId: string): Promise<ConnectionRow[]>;
  /**
   * Revoke: every live grant of the client for this person ended with every token under it, and
   * the consent forgotten, in one transaction; how many grants were ended.
   */
  forget(accountId: string, clientId: string, now: number): Promise<number>;
}
