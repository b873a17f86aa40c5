/**
 * Whether the operator blocked a client known from its metadata document (docs/decisions.md "Client ID Metadata Documents"): checked where
 * such a client authenticates (token, revocation, introspection), so a block also stops clients
 * that signed in before it. Other clients cost no query.
 */
import type { Client } from '../../storage/schema.js';
import type { Store } from '../../storage/store.js';
import { clientIdHost } from './client-id-url.js';
import { judgeClientId } from './rules.js';

export async function isBlockedMetadataClient(
  store: Pick<Store, 'clients'>,
  client: Client,
): Promise<boolean> {
  if (client.kind !== 'metadata_document') return false;
  return judgeClientId(await store.clients.metadataRules(), client.id, clientIdHost(client.id)) === 'blocked';
}
