/** The operator's block and trust rules for client_id URLs (docs/decisions.md "Client ID Metadata Documents"; `schoolauth client block|trust`). */
import type { Kysely } from 'kysely';
import type { ClientMetadataRule, Database, MetadataRuleDecision, MetadataRuleTarget } from './schema.js';

export function listMetadataRules(db: Kysely<Database>): Promise<ClientMetadataRule[]> {
  return db
    .selectFrom('client_metadata_rules')
    .selectAll()
    .orderBy('target_kind')
    .orderBy('target')
    .execute();
}

/** Sets the rule for one target, replacing a rule of the other decision. */
export async function setMetadataRule(
  db: Kysely<Database>,
  rule: { kind: MetadataRuleTarget; target: string; decision: MetadataRuleDecision },
  now: number,
): Promise<void> {
  await db
    .insertInto('client_metadata_rules')
    .values({ target_kind: rule.kind, target: rule.target, decision: rule.decision, created_at: now })
    .onConflict((oc) =>
      oc.columns(['target_kind', 'target']).doUpdateSet({ decision: rule.decision, created_at: now }),
    )
    .execute();
}

/** Removes the rule for one target; whether there was one. */
export async function clearMetadataRule(
  db: Kysely<Database>,
  kind: MetadataRuleTarget,
  target: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('client_metadata_rules')
    .where('target_kind', '=', kind)
    .where('target', '=', target)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
