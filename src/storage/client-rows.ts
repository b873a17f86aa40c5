/** What a client row means, read without the database. */
import type { Client } from './schema.js';

/** How stale a client's last use may get before a token request writes it again (seconds). */
export const CLIENT_TOUCH_INTERVAL = 60;

/**
 * Whether a token request writes the client's last use: last_used_at serves pruning of idle
 * clients (days) and `client list`, so it is written at most once a minute: a write per token
 * request was a commit of its own (docs/performance.md).
 */
export function clientTouchDue(client: Client, now: number): boolean {
  return client.last_used_at === null || now - client.last_used_at >= CLIENT_TOUCH_INTERVAL;
}

/** Parsed redirect URIs of a client row. */
export function redirectUrisOf(client: Client): string[] {
  return JSON.parse(client.redirect_uris) as string[];
}
