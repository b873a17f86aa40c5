/** node-oidc-provider 9 with the SQLite adapter (bench/servers/oidc-provider-server.ts). */
import { join } from 'node:path';
import { freePort, startServer } from '../child.js';
import type { OAuthTarget } from './target.js';

const SERVER = join(import.meta.dirname, '..', 'servers', 'oidc-provider-server.ts');

export async function startOidcProvider(dataDir: string, logFile?: string): Promise<OAuthTarget> {
  const port = await freePort();
  const server = await startServer('node-oidc-provider', {
    args: ['--import', 'tsx', SERVER],
    env: { DB_PATH: join(dataDir, 'oidc-provider.db') },
    port,
    readyPath: '/.well-known/openid-configuration',
    ...(logFile ? { logFile } : {}),
  });
  return {
    name: 'node-oidc-provider',
    server,
    readerScope: 'openid profile email',
    // Without openid the request is plain OAuth 2.0: an opaque access token, no ID token.
    agentScope: 'profile',
    // Its interactions complete themselves (see the server); a page here is unexpected.
    answerPage: async (page) => {
      throw new Error(`node-oidc-provider showed a page at ${page.url}: ${page.body.slice(0, 200)}`);
    },
  };
}
