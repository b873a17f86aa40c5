/**
 * Registered integrations: what the customer's interface description calls "arranged with support" (docs/decisions.md "What the customer's interface description fixes"). An operator
 * creates a client with fixed HTTPS callbacks; its secret is printed once and stored hashed.
 */
import { recordAudit } from '../../audit/audit.js';
import { DEFAULT_SIGNING_ALG, SIGNING_ALGS, type SigningAlg } from '../../crypto/signing-key.js';
import { mintSecret, randomId } from '../../crypto/tokens.js';
import { blankNameProblem, displayTextProblem } from '../../display-text.js';
import { redirectUrisOf } from '../../storage/client-rows.js';
import type { Client, ClientKind } from '../../storage/schema.js';
import { CommandError, defineCommand, isoTime, table, UsageError } from '../command.js';
import { integrationRedirectUriProblem } from './integration-redirect-uri.js';

const MAX_REDIRECT_URIS = 10;
const CLIENT_KINDS: readonly ClientKind[] = ['integration', 'dynamic', 'metadata_document'];

/**
 * An integration's grants: the code flow (with refresh) when it has callbacks, the device
 * authorization grant (RFC 8628 §3.4's grant_type) when asked for with --device.
 */
function integrationGrants(callbacks: boolean, device: boolean): string[] {
  return [
    ...(callbacks ? ['authorization_code'] : []),
    'refresh_token',
    ...(device ? ['urn:ietf:params:oauth:grant-type:device_code'] : []),
  ];
}

export const clientCreate = defineCommand({
  name: 'client create',
  summary: 'Register an integration with HTTPS callbacks; prints its client_id (and, once, its secret)',
  options: {
    name: { type: 'string', required: true, description: 'name shown on the consent page' },
    'redirect-uri': {
      type: 'string',
      multiple: true,
      description:
        'https callback (repeatable); http loopback addresses are accepted too; required unless --device',
    },
    device: {
      type: 'boolean',
      description:
        'also allow the device authorization grant (RFC 8628: a CLI or device without a browser); with no --redirect-uri the integration is device-only',
    },
    confidential: {
      type: 'boolean',
      description: 'issue a client secret (used with client_secret_basic or client_secret_post)',
    },
    'dpop-bound': {
      type: 'boolean',
      description:
        'the integration always sends DPoP proofs (dpop_bound_access_tokens, RFC 9449 §5.2): it never gets a Bearer token',
    },
    'id-token-alg': {
      type: 'string',
      choices: [...SIGNING_ALGS],
      description: `algorithm of its ID tokens (id_token_signed_response_alg; default ${DEFAULT_SIGNING_ALG})`,
    },
  },
  async run(ctx, args, io) {
    const uris = args['redirect-uri'] ?? [];
    // Shown on the consent page and in Connected apps: refused as registration refuses it.
    const nameProblem = displayTextProblem('--name', args.name!) ?? blankNameProblem('--name', args.name!);
    if (nameProblem) throw new UsageError(nameProblem);
    const name = args.name!.trim();
    if (uris.length === 0 && !args.device) {
      throw new UsageError(
        'missing --redirect-uri: --redirect-uri is required (or --device for a device-only integration)',
      );
    }
    if (uris.length > MAX_REDIRECT_URIS) throw new UsageError(`at most ${MAX_REDIRECT_URIS} --redirect-uri`);
    for (const uri of uris) {
      const problem = integrationRedirectUriProblem(uri, ctx.config.loopbackHosts);
      if (problem) throw new UsageError(`--redirect-uri ${problem}`);
    }
    const secret = args.confidential ? mintSecret('clientSecret') : undefined;
    const now = ctx.now();
    const client: Client = {
      id: randomId('int_'),
      kind: 'integration',
      name,
      application_type: 'web',
      redirect_uris: JSON.stringify([...new Set(uris)]),
      token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
      secret_hash: secret?.hash ?? null,
      grant_types: JSON.stringify(integrationGrants(uris.length > 0, args.device === true)),
      response_types: JSON.stringify(uris.length > 0 ? ['code'] : []),
      metadata: args['dpop-bound'] ? JSON.stringify({ dpop_bound_access_tokens: true }) : '{}',
      id_token_signed_response_alg: (args['id-token-alg'] as SigningAlg | undefined) ?? DEFAULT_SIGNING_ALG,
      disabled: 0,
      created_at: now,
      last_used_at: null,
    };
    await ctx.store.clientAdmin.insert(client);
    await recordAudit(ctx.store, { kind: 'client.created', clientId: client.id, detail: { name } }, now);
    io.stdout(`client_id: ${client.id}\n`);
    if (secret) {
      // Shown once on the terminal; only its hash is stored.
      io.stdout(`client_secret: ${secret.value}\n(shown once; store it now, it cannot be shown again)\n`);
    }
  },
});

export const clientList = defineCommand({
  name: 'client list',
  summary:
    'List clients: registered integrations, self-registered (dynamic) clients and clients known from a metadata document',
  options: {
    kind: {
      type: 'string',
      choices: [...CLIENT_KINDS],
      description: 'only registered integrations, self-registered clients or metadata-document clients',
    },
  },
  async run(ctx, args, io) {
    const rows = await ctx.store.clientAdmin.list(args.kind as ClientKind | undefined);
    io.stdout(
      table(
        rows.map((c) => ({
          client_id: c.id,
          name: c.name,
          kind: c.kind,
          auth: c.token_endpoint_auth_method,
          status: c.disabled ? 'disabled' : 'active',
          redirect_uris: redirectUrisOf(c).join(' '),
          created: isoTime(c.created_at),
          last_used: isoTime(c.last_used_at),
        })),
      ),
    );
  },
});

export const clientDisable = defineCommand({
  name: 'client disable',
  summary: 'Disable a client and revoke every grant and token issued to it',
  options: { 'client-id': { type: 'string', required: true, description: 'the client_id' } },
  async run(ctx, args, io) {
    const clientId = args['client-id']!;
    const client = await ctx.store.clients.find(clientId);
    if (!client) throw new CommandError(`no client with client_id ${clientId}`);
    const now = ctx.now();
    const revoked = await ctx.store.clientAdmin.disable(client.id, now);
    await recordAudit(
      ctx.store,
      { kind: 'client.disabled', clientId: client.id, detail: { grants_revoked: revoked } },
      now,
    );
    io.stdout(`disabled ${client.id} (${client.name}); ${revoked} grant(s) and their tokens revoked\n`);
  },
});

export const clientEnable = defineCommand({
  name: 'client enable',
  summary:
    'Let a disabled client ask for authorization again (the grants and tokens revoked when it was disabled stay revoked)',
  options: { 'client-id': { type: 'string', required: true, description: 'the client_id' } },
  async run(ctx, args, io) {
    const clientId = args['client-id']!;
    const client = await ctx.store.clients.find(clientId);
    if (!client) throw new CommandError(`no client with client_id ${clientId}`);
    if (!client.disabled) {
      io.stdout(`${client.id} (${client.name}) is not disabled; nothing changed\n`);
      return;
    }
    const now = ctx.now();
    await ctx.store.clientAdmin.enable(client.id);
    await recordAudit(ctx.store, { kind: 'client.enabled', clientId: client.id }, now);
    io.stdout(
      `enabled ${client.id} (${client.name}): it may ask for authorization again; people let it in anew (the grants revoked when it was disabled stay revoked)\n`,
    );
  },
});
