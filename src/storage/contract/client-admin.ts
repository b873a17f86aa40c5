/** What the operator (the `client` CLI) does to clients and to the metadata-document rules. */
import type { Client, MetadataRuleDecision, MetadataRuleTarget } from '../schema.js';

export interface ClientAdmin {
  /** An operator's client (`client create`). */
  insert(client: Client): Promise<void>;
  /** Every client (of one kind when given), oldest first. */
  list(kind?: Client['kind']): Promise<Client[]>;
  /** In one transaction: the client disabled and its live grants revoked with their tokens; how many grants. */
  disable(clientId: string, now: number): Promise<number>;
  /** The client enabled again; what was revoked when it was disabled stays revoked. */
  enable(clientId: string): Promise<void>;
  /** Every live grant of the client revoked with its tokens, in one transaction; how many. */
  revokeGrants(clientId: string, now: number): Promise<number>;
  /** Sets the rule for one target, replacing a rule of the other decision. */
  setMetadataRule(
    rule: { kind: MetadataRuleTarget; target: string; decision: MetadataRuleDecision },
    now: number,
  ): Promise<void>;
  /** Removes the rule for one target; whether there was one. */
  clearMetadataRule(kind: MetadataRuleTarget, target: string): Promise<boolean>;
}
