/**
 * Client ID Metadata Documents shaped like the real agents' (docs/decisions.md "Client ID Metadata Documents"): portless localhost and
 * 127.0.0.1 entries (Claude Code), a path-less loopback entry with a port and an https entry with
 * `application_type: native` (VS Code), and `application_type: web` with loopback entries.
 */

/** Claude Code's shape: portless loopback callbacks, no application_type. */
export const claudeLike = (clientId: string) => ({
  client_id: clientId,
  client_name: 'Claude Code',
  client_uri: 'https://claude.ai',
  redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** VS Code's shape: a loopback entry with a port and no path, an https redirect, native. */
export const vscodeLike = (clientId: string) => ({
  client_id: clientId,
  client_name: 'Visual Studio Code',
  application_type: 'native',
  redirect_uris: ['http://127.0.0.1:33418', 'https://vscode.dev/redirect', 'http://localhost:33418/'],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
});

/** A web-typed document listing loopback callbacks (application_type never changes the rules). */
export const webTypedLike = (clientId: string) => ({
  client_id: clientId,
  client_name: 'Codex',
  application_type: 'web',
  redirect_uris: ['http://127.0.0.1/auth/callback', 'http://[::1]/auth/callback'],
});
