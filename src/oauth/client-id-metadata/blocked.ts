/**
 * Whether the operator blocked a client known from its metadata document (docs/decisions.md "Client ID Metadata Documents"): checked where
 * such a client authenticates (token, revocation, introspection), so a block also stops clients
 * that signed in before it. Other clients cost no query.
 */
import type { Kysely } from 'kysely';
import { listMetadataRules } from '../../storage/client-metadata-rules.repository.js';
import type { Client, Database } from '../../storage/schema.js';
import { clientIdHost } from './client-id-url.js';
import { judgeClientId } from './rules.js';

export async function isBlockedMetadataClient(db: Kysely<Database>, client: Client): Promise<boolean> {
  if (client.kind !== 'metadata_document') return false;
  return judgeClientId(await listMetadataRules(db), client.id, clientIdHost(client.id)) === 'blocked';
}
