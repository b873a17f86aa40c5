/** The clients: registration, lookups and their last use. */
import type { AuditEventRow, Client } from '../schema.js';

export interface Clients {
  /** A dynamic registration (RFC 7591): the client and its audit row, committed together or not at all. */
  register(client: Client, audit: AuditEventRow): Promise<void>;
}
